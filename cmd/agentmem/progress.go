package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/schollz/progressbar/v3"

	"github.com/agentmem/agentmem/core/vector/local"
)

// progress is a progress bar with rate and ETA on a terminal, silent
// otherwise (pipes, tests, --json, --no-progress).
type progress struct{ bar *progressbar.ProgressBar }

// newProgress is a progress bar of total messages.
func (a *app) newProgress(total int64, what string) *progress {
	return a.newBar(total, what, progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("msgs"))
}

// newShareProgress is a progress bar of a job that knows only the share
// of its work done: it counts in thousandths, shown as a percentage.
func (a *app) newShareProgress(what string) *progress {
	return a.newBar(shareSteps, what)
}

// shareSteps is the steps of a newShareProgress bar.
const shareSteps = 1000

// newBar is a progress bar of total steps with the options of every bar
// and extra ones, or a silent one off a terminal.
func (a *app) newBar(total int64, what string, extra ...progressbar.Option) *progress {
	f, ok := a.stderr.(*os.File)
	if !ok || a.flags.noProgress || a.flags.json || !isTerminal(f) {
		return &progress{}
	}
	opts := append([]progressbar.Option{
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
	}, extra...)
	return &progress{bar: progressbar.NewOptions64(total, opts...)}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *progress) add(n int) {
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

// describe replaces the text shown before the bar.
func (p *progress) describe(s string) {
	if p.bar != nil {
		p.bar.Describe(s)
	}
}

// graphShown is the size from which a graph build shows on a bar: smaller
// ones take well under a second.
const graphShown = 5000

// showGraph returns a local.Options.Progress that shows, on a bar
// described what, the share of each large graph build done.
func (p *progress) showGraph(what string) func(local.BuildProgress) {
	return func(b local.BuildProgress) {
		switch {
		case b.Total < graphShown:
		case b.Done < b.Total:
			p.describe(fmt.Sprintf("%s (search graph of %s: %d%%)", what, b.Resource, 100*b.Done/b.Total))
		default:
			p.describe(what)
		}
	}
}

// buildWatch hands a local vector store's graph build reports to the
// function watch set last, if any.
type buildWatch struct {
	fn atomic.Pointer[func(local.BuildProgress)]
}

func (w *buildWatch) report(b local.BuildProgress) {
	if f := w.fn.Load(); f != nil {
		(*f)(b)
	}
}

// watch sends the reports to f from now on (nil: to nobody).
func (w *buildWatch) watch(f func(local.BuildProgress)) {
	if f == nil {
		w.fn.Store(nil)
		return
	}
	w.fn.Store(&f)
}

func (p *progress) done() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// checkpoint is the durable progress of a resumable job, kept under the
// user's cache directory and named after the job's identity (command, store,
// input), so that running the same command again resumes it.
type checkpoint struct {
	path string
}

// checkpointState is what a checkpoint file holds.
type checkpointState struct {
	// Done is the number of input records fully imported (import) .
	Done int `json:"done,omitempty"`
	// Threads are the threads finished (reindex).
	Threads []string `json:"threads,omitempty"`
}

// newCheckpoint names the checkpoint of the job identified by parts.
func newCheckpoint(parts ...string) (*checkpoint, error) {
	dir := os.Getenv("AGENTMEM_STATE_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(cache, "agentmem", "progress")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return &checkpoint{path: filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")}, nil
}

// openCheckpoint names the checkpoint of the job identified by parts and
// loads its state, unless restart asks to ignore it.
func openCheckpoint(restart bool, parts ...string) (*checkpoint, checkpointState, error) {
	cp, err := newCheckpoint(parts...)
	if err != nil || restart {
		return cp, checkpointState{}, err
	}
	st, err := cp.load()
	return cp, st, err
}

func (c *checkpoint) load() (checkpointState, error) {
	var st checkpointState
	b, err := os.ReadFile(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return checkpointState{}, nil // a damaged checkpoint only costs redoing idempotent work
	}
	return st, nil
}

// save writes st atomically.
func (c *checkpoint) save(st checkpointState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := c.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, c.path)
}

// clear removes the checkpoint of a finished job.
func (c *checkpoint) clear() error {
	err := os.Remove(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
