package observe

import (
	"context"
	"errors"
	"sync"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// workers bounds the background observation cycles running at once.
const workers = 4

// Runtime is the in-process coordination of observational memory: one cycle
// at a time per record key (the store's compare-and-set keeps other
// processes correct) and the background jobs. The zero value is ready.
type Runtime struct {
	mu    sync.Mutex
	locks map[string]*keyLock
	jobs  map[string]*job
	sem   chan struct{}
	// bufSem bounds the buffer and reflection jobs apart from the cycles:
	// a cycle waiting for its record's buffer job never holds the slot
	// that job needs.
	bufSem chan struct{}
	// oversize holds, per key, the version written by a reflection that did
	// not get under the threshold: it is not reflected again until an
	// observation is added (a weak reflector is not called every turn).
	oversize map[string]int64
}

type keyLock struct {
	ch   chan struct{}
	refs int
}

type job struct {
	run   func()
	again bool
	done  chan struct{} // closed when the job ends
}

// ErrBusy reports that a cycle of the key is already running in this
// process; a synchronous Commit does not wait for it.
var ErrBusy = errors.New("observation already running")

// Lock takes the in-process lock of key, waiting at most until ctx is done;
// without wait it fails at once with ErrBusy when the lock is taken. The
// returned func releases it.
func (r *Runtime) Lock(ctx context.Context, key string, wait bool) (func(), error) {
	r.mu.Lock()
	if r.locks == nil {
		r.locks = map[string]*keyLock{}
	}
	l := r.locks[key]
	if l == nil {
		l = &keyLock{ch: make(chan struct{}, 1)}
		r.locks[key] = l
	}
	l.refs++
	r.mu.Unlock()
	release := func() {
		r.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(r.locks, key)
		}
		r.mu.Unlock()
	}
	if !wait {
		select {
		case l.ch <- struct{}{}:
			return func() { <-l.ch; release() }, nil
		default:
			release()
			return nil, ErrBusy
		}
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, memerr.Context("observe", ctx.Err())
	}
}

// Schedule runs run in a background goroutine counted in wg, at most
// workers at once. Requests coalesce: while a job of key is in flight, a
// new request replaces its run and makes it go once more after the current
// one, so at most one cycle per key runs and the newest request is served.
func (r *Runtime) Schedule(key string, wg *sync.WaitGroup, run func()) {
	r.schedule(key, wg, run, &r.sem)
}

// scheduleJob is Schedule for buffer and reflection jobs.
func (r *Runtime) scheduleJob(key string, wg *sync.WaitGroup, run func()) {
	r.schedule(key, wg, run, &r.bufSem)
}

func (r *Runtime) schedule(key string, wg *sync.WaitGroup, run func(), slots *chan struct{}) {
	r.mu.Lock()
	if j := r.jobs[key]; j != nil {
		j.run, j.again = run, true
		r.mu.Unlock()
		return
	}
	if r.jobs == nil {
		r.jobs = map[string]*job{}
	}
	if *slots == nil {
		*slots = make(chan struct{}, workers)
	}
	j := &job{run: run, done: make(chan struct{})}
	r.jobs[key] = j
	sem := *slots
	wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer wg.Done()
		for {
			sem <- struct{}{}
			r.mu.Lock()
			run := j.run
			j.again = false
			r.mu.Unlock()
			run()
			<-sem
			r.mu.Lock()
			if !j.again {
				delete(r.jobs, key)
				close(j.done)
				r.mu.Unlock()
				return
			}
			r.mu.Unlock()
		}
	}()
}

// Wait waits until no job of key is in flight in this process, at most
// until ctx is done.
func (r *Runtime) Wait(ctx context.Context, key string) error {
	r.mu.Lock()
	j := r.jobs[key]
	r.mu.Unlock()
	if j == nil {
		return nil
	}
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		return memerr.Context("observe", ctx.Err())
	}
}

// ReflectedOversize reports whether rec was written by a reflection that
// stayed over the threshold (see NoteOversize) and has not changed since.
func (r *Runtime) ReflectedOversize(rec store.ObservationRecord) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.oversize[rec.Key]
	return ok && v == rec.Version
}

// NoteOversize records whether the reflection that wrote rec stayed over the
// threshold. The notes are bounded: past 10,000 keys they start over, which
// at worst calls a weak reflector once more.
func (r *Runtime) NoteOversize(rec store.ObservationRecord, oversize bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !oversize {
		delete(r.oversize, rec.Key)
		return
	}
	if r.oversize == nil || len(r.oversize) >= 10000 {
		r.oversize = map[string]int64{}
	}
	r.oversize[rec.Key] = rec.Version
}
