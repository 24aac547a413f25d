package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/dossierhq/dossier/store/fsafe"
)

// TrustFileName is the file in the user's dossier config directory that
// records the trusted workspaces.
const TrustFileName = "trusted.json"

// trustVersion is the format of the trust file this dossier writes.
const trustVersion = 1

// TrustState says whether a workspace's gated settings are honoured.
type TrustState int

// Trust states.
const (
	// NothingToTrust: the workspace file sets no gated setting.
	NothingToTrust TrustState = iota
	// Untrusted: the user never trusted the workspace, or revoked it, or
	// the trust file cannot be read.
	Untrusted
	// Changed: the user trusted other settings than the file holds now.
	Changed
	// Trusted: the user trusted exactly these settings.
	Trusted
)

// Workspace is a workspace's gated settings and whether they are trusted.
type Workspace struct {
	// Root is the workspace's absolute path with symlinks resolved: the
	// key trust is recorded under.
	Root string
	// File is the workspace config file.
	File     string
	Settings []Setting
	// Hash is the sha256 of Settings that trust is recorded under.
	Hash  string
	State TrustState
	// TrustErr says why the trust file could not be read; the settings
	// are then Untrusted.
	TrustErr error
}

// TrustEntry is one trusted workspace as the trust file records it.
type TrustEntry struct {
	Root      string    `json:"-"`
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trusted_at"`
	// Settings are the trusted settings as shown when they were trusted.
	Settings []string `json:"settings"`
}

type trustFile struct {
	Version    int                   `json:"version"`
	Workspaces map[string]TrustEntry `json:"workspaces"`
}

// TrustFilePath is where trust is recorded:
// $XDG_CONFIG_HOME/dossier/trusted.json (os.UserConfigDir).
func TrustFilePath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("trust file: %w (set $XDG_CONFIG_HOME or $HOME)", err)
	}
	return filepath.Join(dir, "dossier", TrustFileName), nil
}

// Inspect reads a workspace's config file and reports its gated settings
// and whether they are trusted. The settings are checked as if trusted,
// so a malformed file or a setting that cannot work is an error before
// anyone trusts it; an unreadable trust file is not (see
// Workspace.TrustErr).
func Inspect(root string) (Workspace, error) {
	_, w, err := load(root, true)
	return w, err
}

// state fills in Hash and State from Settings and the trust file.
func (w *Workspace) state() {
	if len(w.Settings) == 0 {
		w.State = NothingToTrust
		return
	}
	w.Hash = hashSettings(w.Settings)
	w.State = Untrusted
	tf, _, err := readTrust()
	if err != nil {
		w.TrustErr = err
		return
	}
	if e, ok := tf.Workspaces[w.Root]; ok {
		w.State = Changed
		if e.SHA256 == w.Hash {
			w.State = Trusted
		}
	}
}

// Trust records the workspace's current gated settings as trusted. It
// refuses a workspace that sets none, and a trust file it cannot read
// (rather than overwrite the user's other entries).
func Trust(root string, now time.Time) (Workspace, error) {
	w, err := Inspect(root)
	if err != nil {
		return w, err
	}
	if w.State == NothingToTrust {
		return w, nil
	}
	tf, path, err := readTrust()
	if err != nil {
		return w, err
	}
	lines := make([]string, len(w.Settings))
	for i, s := range w.Settings {
		lines[i] = s.String()
	}
	tf.Workspaces[w.Root] = TrustEntry{SHA256: w.Hash, TrustedAt: now.UTC(), Settings: lines}
	if err := writeTrust(path, tf); err != nil {
		return w, err
	}
	w.State = Trusted
	return w, nil
}

// Revoke forgets a workspace's trust; false when it was not trusted.
func Revoke(root string) (bool, error) {
	tf, path, err := readTrust()
	if err != nil {
		return false, err
	}
	key := canonical(root)
	if _, ok := tf.Workspaces[key]; !ok {
		return false, nil
	}
	delete(tf.Workspaces, key)
	return true, writeTrust(path, tf)
}

// TrustedWorkspaces returns every trusted workspace, by path.
func TrustedWorkspaces() ([]TrustEntry, error) {
	tf, _, err := readTrust()
	if err != nil {
		return nil, err
	}
	out := make([]TrustEntry, 0, len(tf.Workspaces))
	for root, e := range tf.Workspaces {
		e.Root = root
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out, nil
}

// readTrust reads the trust file; a missing one is empty.
func readTrust() (trustFile, string, error) {
	tf := trustFile{Version: trustVersion, Workspaces: map[string]TrustEntry{}}
	path, err := TrustFilePath()
	if err != nil {
		return tf, "", err
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return tf, path, nil
	}
	if err != nil {
		return tf, path, fmt.Errorf("trust file %s: %w", path, err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o022 != 0 {
		return tf, path, fmt.Errorf("trust file %s is writable by other users, so it cannot vouch for anything: run `chmod 600 %s`", path, path)
	}
	data, err := fsafe.ReadFile(path, maxConfigFile)
	if err != nil {
		return tf, path, fmt.Errorf("trust file %s: %w", path, err)
	}
	var got trustFile
	if err := json.Unmarshal(data, &got); err != nil {
		return tf, path, fmt.Errorf("trust file %s is not valid JSON (%v): fix it, or delete it and trust your workspaces again", path, err)
	}
	if got.Version != trustVersion {
		return tf, path, fmt.Errorf("trust file %s has version %d, this dossier reads %d: delete it and trust your workspaces again", path, got.Version, trustVersion)
	}
	if got.Workspaces == nil {
		got.Workspaces = map[string]TrustEntry{}
	}
	return got, path, nil
}

// writeTrust replaces the trust file atomically (a temporary file renamed
// over it), readable by the user alone, in a directory only the user can
// enter.
func writeTrust(path string, tf trustFile) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust file: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("trust file: %w", err)
	}
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return fmt.Errorf("trust file: %w", err)
	}
	f, err := os.CreateTemp(dir, ".trusted-*.json") // created 0600
	if err != nil {
		return fmt.Errorf("trust file: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(append(data, '\n')); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write trust file %s: %w", path, err)
	}
	return nil
}

// canonical is the path trust is recorded under: absolute, symlinks
// resolved, so two spellings of one workspace share one entry.
func canonical(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return filepath.Clean(root)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// Notice is the one line a command prints when a workspace's gated
// settings are ignored: the file, the keys, why, and how to trust.
func (w Workspace) Notice() string {
	if w.State == NothingToTrust || w.State == Trusted {
		return ""
	}
	cmd := "dossier trust"
	if wd, err := os.Getwd(); err != nil || canonical(wd) != w.Root {
		cmd += " --root " + shellquote.Join(filepath.Dir(w.File))
	}
	why := "this workspace is not trusted (review them, then run '" + cmd + "')"
	switch {
	case w.TrustErr != nil:
		why = fmt.Sprintf("%v; then review them and run '%s'", w.TrustErr, cmd)
	case w.State == Changed:
		why = "they changed since you trusted this workspace (review them, then run '" + cmd + "')"
	}
	return fmt.Sprintf("dossier: ignoring %s in %s: %s", keyList(w.Settings), w.File, why)
}

// keyList names settings by section: "[embed] provider, base_url".
func keyList(ss []Setting) string {
	var parts []string
	section := ""
	for _, s := range ss {
		if s.Section != section {
			section = s.Section
			parts = append(parts, "["+section+"] "+s.Key)
			continue
		}
		parts[len(parts)-1] += ", " + s.Key
	}
	return strings.Join(parts, "; ")
}
