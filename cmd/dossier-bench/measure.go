package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// output is what a measured command printed.
type output struct{ stdout, stderr string }

// tail is the line that best explains a failure: the last meaningful line
// of stderr, else of stdout.
func (o output) tail() string {
	if l := lastLine(o.stderr); l != "no output" {
		return l
	}
	return lastLine(o.stdout)
}

// measure runs name with args in dir and returns its wall time and peak
// memory.
//
// Peak RSS comes from the rusage of the waited child
// (cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, KiB on Linux).
// Linux fills wait4's rusage like getrusage(RUSAGE_BOTH) on the zombie, so
// its ru_maxrss is the maximum of the child's own peak and the peaks of the
// descendants it reaped: for `npm exec`, which waits for the `sh -c repomix`
// it spawns, which waits for node, that includes repomix's node process. It
// matches `/usr/bin/time -f %M`, which reads the same field. It is a
// per-process maximum, not a sum, which is why deltas of
// getrusage(RUSAGE_CHILDREN) would be wrong here: ru_maxrss is a running
// maximum over every child this harness ever reaped, so a smaller later
// child would not move it.
//
// Because processes that are alive at the same time add up, measure also
// samples the summed RSS of the child's process group (the child is started
// as a group leader) from /proc every 20 ms, and reports the largest sum.
func measure(ctx context.Context, dir string, stdin []byte, name string, args ...string) (Measurement, output, error) {
	var m Measurement
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return m, output{}, err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var treeKiB int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		treeKiB = sampleGroup(cmd.Process.Pid, stop)
	}()
	err := cmd.Wait()
	m.Wall = time.Since(start).Seconds()
	close(stop)
	wg.Wait()

	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.MaxRSSMB = float64(ru.Maxrss) / 1024
	}
	m.TreeRSSMB = max(float64(treeKiB)/1024, m.MaxRSSMB)
	return m, output{stdout.String(), stderr.String()}, err
}

// sampleGroup returns the largest summed RSS (KiB) of the processes in
// process group pgid, sampled until stop is closed.
func sampleGroup(pgid int, stop <-chan struct{}) int64 {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var peak int64
	for {
		// The first sample is a tick after the start: reading /proc
		// takes a core for a few milliseconds, which a one-shot process
		// of 15 ms would be measured with on two cores. A process that
		// short has no children to sum; its own peak is its rusage's.
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
		if s := groupRSS(pgid); s > peak {
			peak = s
		}
	}
}

var pageKiB = int64(os.Getpagesize() / 1024)

// groupRSS sums the resident set of every process whose process group is
// pgid, in KiB.
func groupRSS(pgid int) int64 {
	d, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var sum int64
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command name, which is in parentheses and may
		// hold spaces: state ppid pgrp session tty_nr tpgid flags minflt
		// cminflt majflt cmajflt utime stime cutime cstime priority nice
		// num_threads itrealvalue starttime vsize rss ...
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 22 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		if rss, err := strconv.ParseInt(f[21], 10, 64); err == nil {
			sum += rss * pageKiB
		}
	}
	return sum
}
