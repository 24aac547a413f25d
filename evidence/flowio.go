package evidence

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

func init() {
	register(&command{group: "flow", name: "export", args: "[--out FILE]",
		summary: "Write the current flow as one JSON file (its parts, settings and turns, with the commit\n" +
			"each part was taken at) for a teammate or a later session to `flow import`.",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.StringVar(&o.out, "out", "", "write to FILE (default: stdout)")
		},
		run: (*Engine).flowExport})
	register(&command{group: "flow", name: "import", args: "FILE",
		summary: "Make a flow from a `flow export` file and make it current, then report per part how its\n" +
			"source stands in this checkout (as `flow diff`); `evidence refresh` re-anchors them.",
		run: (*Engine).flowImport})
}

// bundleVersion is the version of the export format: bump it when a
// reader of an older one would misread a newer one.
const bundleVersion = 1

// maxBundleBytes bounds an export file read by import.
const maxBundleBytes = 256 << 20

// bundle is a flow as one file. Files are the flow's own (flow.json
// aside, which Meta carries): parts under ctx/, turns under turns/; build/
// is left out, since it is made again.
type bundle struct {
	Version int             `json:"dossier_flow"`
	Meta    json.RawMessage `json:"meta"`
	Files   []bundleFile    `json:"files"`
}

// bundleFile is one file of a bundle: its text, or its bytes in base64
// when they are not UTF-8, or the workspace path a .link part names.
type bundleFile struct {
	Path   string `json:"path"`
	Text   string `json:"text,omitempty"`
	Base64 string `json:"base64,omitempty"`
	Link   string `json:"link,omitempty"`
}

func (e *Engine) flowExport(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	meta, err := ReadRegular(filepath.Join(f.Dir, metaFile), f.roots)
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(f.Dir, metaFile), err)
	}
	b := bundle{Version: bundleVersion, Meta: json.RawMessage(meta)}
	for _, p := range f.Parts {
		bf := bundleFile{Path: p.File}
		if p.Refused != "" {
			return fmt.Errorf("%s cannot be exported: %s", p.ID(), p.Broken)
		}
		switch {
		case p.Link:
			bf.Link = p.Source.Path
			if bf.Link == "" {
				return fmt.Errorf("%s links to %s, outside the workspace: a teammate's checkout cannot have it; remove the link or add the file's text", p.ID(), p.Target)
			}
		case utf8.ValidString(p.Content):
			bf.Text = p.Content
		default:
			bf.Base64 = base64.StdEncoding.EncodeToString([]byte(p.Content))
		}
		b.Files = append(b.Files, bf)
	}
	turns, _ := os.ReadDir(filepath.Join(f.Dir, turnsDir))
	for _, t := range turns {
		if !t.Type().IsRegular() || turnFile().FindStringSubmatch(t.Name()) == nil {
			continue
		}
		raw, err := ReadRegular(filepath.Join(f.Dir, turnsDir, t.Name()), f.roots)
		if err != nil {
			return fmt.Errorf("read turn %s: %w", t.Name(), err)
		}
		bf := bundleFile{Path: turnsDir + "/" + t.Name(), Text: string(raw)}
		if !utf8.Valid(raw) {
			bf.Text, bf.Base64 = "", base64.StdEncoding.EncodeToString(raw)
		}
		b.Files = append(b.Files, bf)
	}
	out, err := json.MarshalIndent(b, "", " ")
	if err != nil {
		return err
	}
	out = append(out, '\n')
	if c.o.out == "" {
		_, err = c.w.Write(out)
		return err
	}
	dst := c.o.out
	if !filepath.IsAbs(dst) {
		dst = filepath.Join(e.cwd(), dst)
	}
	if err := WriteOutput(c.ctx, dst, out); err != nil {
		return err
	}
	fmt.Fprintf(c.w, "✓ Exported %s (%d part(s), %d turn file(s)) to %s\n  Commits: %s\n", f.Meta.ID, len(f.Parts), len(b.Files)-len(f.Parts), dst, e.commitRange(f))
	return nil
}

func (e *Engine) flowImport(c *call) error {
	if len(c.args) != 1 {
		return usagef("import takes one FILE (written by `dossier flow export`)")
	}
	name := c.args[0]
	if !filepath.IsAbs(name) {
		name = filepath.Join(e.cwd(), name)
	}
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	if st.Size() > maxBundleBytes {
		return fmt.Errorf("%s is %d MB, over the %d MB an export file may be", c.args[0], st.Size()>>20, maxBundleBytes>>20)
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	var b bundle
	if err := json.Unmarshal(raw, &b); err != nil || b.Version == 0 {
		return fmt.Errorf("%s is not a flow export (`dossier flow export` writes one): %v", c.args[0], errOr(err, "no dossier_flow version"))
	}
	if b.Version > bundleVersion {
		return fmt.Errorf("%s is a flow export of version %d, newer than this dossier reads (%d): update dossier", c.args[0], b.Version, bundleVersion)
	}
	var meta Meta
	if err := json.Unmarshal(b.Meta, &meta); err != nil || meta.ID == "" {
		return fmt.Errorf("%s: its flow settings (meta) do not read: %v", c.args[0], errOr(err, "no flow id"))
	}
	// Every file is checked before anything is written.
	for _, bf := range b.Files {
		err := checkBundlePath(bf)
		if err == nil && bf.Link != "" {
			// What `add --link` refuses, an import does too.
			if err = RefuseGitPath(bf.Link, bf.Link); err == nil {
				err = refuseSecretFile(e.Root, bf.Link, filepath.Join(e.Root, filepath.FromSlash(bf.Link)))
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w; nothing was imported", c.args[0], err)
		}
	}
	dir, err := freeFlowDir(e.Root, meta.ID)
	if err != nil {
		return err
	}
	if err := e.writeBundle(dir, b, &meta); err != nil {
		_ = os.RemoveAll(dir)
		return err
	}
	if _, err := Use(e.Root, meta.ID); err != nil {
		return err
	}
	e.Reload()
	fmt.Fprintf(c.w, "✓ Imported flow %s (%d file(s)) and made it current\n", meta.ID, len(b.Files))
	if err := e.flowDiff(c); err != nil {
		return err
	}
	fmt.Fprintln(c.w, "  `dossier evidence refresh` re-anchors the parts on this checkout")
	return nil
}

// checkBundlePath refuses a file a flow does not hold: a part name that
// is not seed 003's, a turn that is not a turn, anything that would leave
// the flow directory.
func checkBundlePath(bf bundleFile) error {
	p := bf.Path
	if p != path.Clean(p) || strings.Contains(p, "\\") || path.IsAbs(p) {
		return fmt.Errorf("file %q is not a plain path inside a flow", p)
	}
	dir, base := path.Split(p)
	switch dir {
	case ctxDir + "/", evidenceDir + "/":
		n, ok := ParsePartName(base)
		if !ok || (dir == evidenceDir+"/") != (n.Role == "evidence") {
			return fmt.Errorf("file %q is not a part a flow holds there (seed 003: RANK_KIND.ROLE.md)", p)
		}
		if n.Link != (bf.Link != "") {
			return fmt.Errorf("part %q: a .link part names a workspace path, any other part has text", p)
		}
		if bf.Link != "" && (path.IsAbs(bf.Link) || bf.Link != path.Clean(bf.Link) || strings.HasPrefix(bf.Link, "../") || bf.Link == "..") {
			return fmt.Errorf("link part %q names %q, not a path inside the workspace", p, bf.Link)
		}
	case turnsDir + "/":
		if turnFile().FindStringSubmatch(base) == nil {
			return fmt.Errorf("file %q is not a turn's file (NNN.request.json, NNN.answer.md)", p)
		}
	default:
		return fmt.Errorf("file %q is not a part (ctx/, ctx/evidence/) or a turn (turns/)", p)
	}
	if bf.Base64 != "" {
		if _, err := base64.StdEncoding.DecodeString(bf.Base64); err != nil {
			return fmt.Errorf("file %q: its base64 does not decode: %v", p, err)
		}
	}
	return nil
}

// flowID is what a flow id may be: a directory name of its own.
var flowID = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}$`)

// freeFlowDir is the directory an imported flow of id gets: its own id
// when the workspace has no flow of that id, else id-2, id-3...
func freeFlowDir(root, id string) (string, error) {
	if !flowID().MatchString(id) {
		return "", fmt.Errorf("the export's flow id %q is not a flow id (letters, digits, '-')", id)
	}
	base := filepath.Join(FlowsDir(root), id)
	dir := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			return dir, nil
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// writeBundle writes b's files into the new flow directory dir, and its
// settings with the id dir gives.
func (e *Engine) writeBundle(dir string, b bundle, meta *Meta) error {
	for _, sub := range []string{evidenceDir, buildDir} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(sub)), DirMode); err != nil {
			return writeErr(dir, err)
		}
	}
	for _, bf := range b.Files {
		dst := filepath.Join(dir, filepath.FromSlash(bf.Path))
		if err := os.MkdirAll(filepath.Dir(dst), DirMode); err != nil {
			return writeErr(dst, err)
		}
		if bf.Link != "" {
			if err := os.Symlink(linkTarget(e.Root, dir, filepath.Dir(dst), bf.Link), dst); err != nil {
				return writeErr(dst, err)
			}
			continue
		}
		data := []byte(bf.Text)
		if bf.Base64 != "" {
			data, _ = base64.StdEncoding.DecodeString(bf.Base64)
		}
		if err := WriteFileAtomic(dst, data); err != nil {
			return err
		}
	}
	meta.ID = filepath.Base(dir)
	f := &Flow{Dir: dir, Meta: *meta}
	return f.SaveMeta()
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}
