// Package sibling finds and starts dossier's other binaries: dossier-full,
// to which the one-shot dossier front hands every command it does not
// answer itself, and dossier-workbench, which dossier without a command
// opens on a terminal. Each is a binary of its own so that a one-shot
// command does not pay the package init of what it does not use.
package sibling

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// A Binary is one of dossier's other binaries.
type Binary struct {
	Name string // its file name, without .exe
	Env  string // the variable that names another path for it
	What string // what it is, for messages: "the workbench"
}

// dossier's other binaries.
var (
	// Full serves every command; the one-shot front hands it what it does
	// not answer itself.
	Full = Binary{Name: "dossier-full", Env: "DOSSIER_FULL", What: "the full dossier"}
	// Workbench is the terminal workbench, which dossier without a command
	// opens on a terminal.
	Workbench = Binary{Name: "dossier-workbench", Env: "DOSSIER_WORKBENCH", What: "the workbench"}
)

// HandedOn is set in the environment of the dossier-full the one-shot
// front hands a command to; dossier-full clears it at start. A front that
// finds it set was itself started as dossier-full (DOSSIER_FULL naming a
// copy of dossier), and handing on again would never end.
const HandedOn = "DOSSIER_HANDED_ON"

// Find is the path of b: $Env when set, else the one next to this
// executable (symlinks resolved), else the one on PATH. A path that is
// this executable itself (DOSSIER_FULL pointed at dossier) is refused:
// handing on to it would start it again without end.
func (b Binary) Find() (string, error) {
	p, err := b.find()
	if err != nil {
		return "", err
	}
	self, serr := os.Executable()
	if serr != nil {
		return p, nil
	}
	st, err := os.Stat(p)
	me, merr := os.Stat(self)
	if err == nil && merr == nil && os.SameFile(st, me) {
		return "", fmt.Errorf("%s %s is this very binary, %s, not %s: point %s at %s's binary, or unset it", b.What, p, filepath.Base(self), b.Name, b.Env, b.What)
	}
	return p, nil
}

func (b Binary) find() (string, error) {
	name := b.Name
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if p := os.Getenv(b.Env); p != "" {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", fmt.Errorf("%s=%s is not %s's binary: point it at %s, or unset it to use the one next to dossier or on PATH", b.Env, p, b.What, b.Name)
		}
		return p, nil
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s %s: %w", b.What, p, err)
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	where := "on PATH"
	if self != "" {
		where = "in " + filepath.Dir(self) + " (next to dossier) or on PATH"
	}
	return "", fmt.Errorf("%s is the separate binary %s, which is not %s: build dossier's binaries into bin/ with `make build`, or install them all with `go install github.com/dossierhq/dossier/cmd/...`", b.What, name, where)
}

// Exec replaces this process with b, started with args (after its name)
// and env, so that the terminal, signals and exit code are its own.
// Where there is no exec (Windows) it runs b with the terminal passed
// through and returns an error whose ExitCode is b's.
func (b Binary) Exec(args, env []string) error {
	path, err := b.Find()
	if err != nil {
		return err
	}
	return run(path, append([]string{path}, args...), env, b.What)
}
