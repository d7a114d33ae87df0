package importer

import (
	"context"
	"errors"
	"github.com/agentmem/agentmem/core/message"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
)

// DefaultBatch is the number of messages per SaveMessages call (one
// transaction, one round trip on PostgreSQL): past ~1,000 larger batches
// gain little on either store (BENCHMARKS.md).
const DefaultBatch = 1000

// noIndexing keeps an import without --vector from embedding: the index is
// built later with reindex.
var noIndexing = &core.Config{SemanticRecall: &core.SemanticRecall{Disabled: true}}

// Importer writes checked records to a Memory. Message batches run on a
// pool of workers (tokenization, the expensive part of a save, runs in
// parallel): batches of one thread are cut only between different
// timestamps, so their order in the thread is the same whichever batch
// commits first. A thread's boundary, working memory, observations and
// UpdatedAt are written by whichever worker finishes its last batch.
type Importer struct {
	Memory *core.Memory
	Store  *store.Checked
	// Progress, if set, is told the number of messages of every saved batch.
	Progress func(messages int)
	Batch    int // messages per SaveMessages call
	// Index: the Memory has a vector store, so saves index the messages as
	// they go.
	Index bool

	Saved, Dropped, Threads atomic.Int64 // this run's counts

	mu       sync.Mutex
	inflight map[int]bool // first positions of unfinished threads
	handed   int          // every position up to this one was handed over
}

// threadJob is one thread being imported.
type threadJob struct {
	first   int // position of the thread line
	thread  store.Thread
	wm      *export.WorkingMemoryDoc
	obs     []export.ObservationDoc
	batch   []message.Message
	pending atomic.Int64 // batches submitted and not finished, +1 while the thread is open

	mu     sync.Mutex
	lastAt time.Time // newest stored CreatedAt of the saved messages
}

// saved notes the stored times of saved messages.
func (j *threadJob) saved(msgs []message.Message) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, m := range msgs {
		if m.CreatedAt.After(j.lastAt) {
			j.lastAt = m.CreatedAt
		}
	}
}

type batchTask struct {
	job  *threadJob
	msgs []message.Message
}

// Run imports every record after position from and returns the last
// position of a fully imported prefix (for the checkpoint) and the error.
func (im *Importer) Run(ctx context.Context, src *Source, from int) (int, error) {
	g, ctx := errgroup.WithContext(ctx)
	workers := importWorkers()
	tasks := make(chan batchTask, workers)
	for range workers {
		g.Go(func() error {
			for t := range tasks {
				if err := im.saveBatch(ctx, t); err != nil {
					return err
				}
			}
			return nil
		})
	}
	im.inflight, im.handed = map[int]bool{}, from
	g.Go(func() error {
		defer close(tasks)
		d := dispatcher{im: im, tasks: tasks}
		err := src.Each(ctx, func(n int, r export.Record) error {
			if n <= from {
				return nil
			}
			return d.record(ctx, n, r)
		}, func(string) {})
		if err == nil {
			err = d.closeThread(ctx)
		}
		return err
	})
	err := g.Wait()
	return im.donePrefix(), err
}

// donePrefix is the last position before which everything is imported.
func (im *Importer) donePrefix() int {
	im.mu.Lock()
	defer im.mu.Unlock()
	done := im.handed
	for first := range im.inflight {
		done = min(done, first-1)
	}
	return done
}

// dispatcher turns the record stream into thread jobs and batches.
type dispatcher struct {
	im    *Importer
	tasks chan<- batchTask
	cur   *threadJob
}

func (d *dispatcher) record(ctx context.Context, n int, r export.Record) error {
	if err := d.dispatch(ctx, n, r); err != nil {
		return err
	}
	d.im.mu.Lock()
	d.im.handed = n
	d.im.mu.Unlock()
	return nil
}

func (d *dispatcher) dispatch(ctx context.Context, n int, r export.Record) error {
	im := d.im
	switch r.Kind {
	case export.KindMessage:
		return d.message(ctx, *r.Message)
	case export.KindWorkingMemory: // the checker made sure it follows its thread
		d.cur.wm = r.WorkingMemory
		return nil
	case export.KindObservations:
		if scope, _, _ := store.ParseObservationKey(r.Observations.Key); scope == store.ScopeThread {
			d.cur.obs = append(d.cur.obs, *r.Observations)
			return nil
		}
	}
	if err := d.closeThread(ctx); err != nil {
		return err
	}
	switch r.Kind {
	case export.KindThread:
		return d.openThread(ctx, n, *r.Thread)
	case export.KindResource:
		return im.resource(ctx, *r.Resource)
	case export.KindObservations:
		return putObservations(ctx, im.Store, []export.ObservationDoc{*r.Observations})
	}
	return nil
}

func (d *dispatcher) openThread(ctx context.Context, n int, t store.Thread) error {
	in := t
	in.UpdatedAt, in.Boundary = time.Time{}, nil
	if _, err := d.im.Store.SaveThread(ctx, in); err != nil {
		return err
	}
	d.im.Threads.Add(1)
	d.cur = &threadJob{first: n, thread: t}
	d.cur.pending.Store(1)
	d.im.mu.Lock()
	d.im.inflight[n] = true
	d.im.mu.Unlock()
	return nil
}

func (d *dispatcher) message(ctx context.Context, m message.Message) error {
	j := d.cur
	if len(j.batch) >= d.im.Batch && !export.UTC(m.CreatedAt).Equal(export.UTC(j.batch[len(j.batch)-1].CreatedAt)) {
		if err := d.submit(ctx, j); err != nil {
			return err
		}
	}
	if j.batch == nil {
		j.batch = make([]message.Message, 0, d.im.Batch)
	}
	j.batch = append(j.batch, m)
	return nil
}

// submit hands j's collected messages to the workers.
func (d *dispatcher) submit(ctx context.Context, j *threadJob) error {
	if len(j.batch) == 0 {
		return nil
	}
	j.pending.Add(1)
	select {
	case d.tasks <- batchTask{job: j, msgs: j.batch}:
	case <-ctx.Done():
		return ctx.Err()
	}
	j.batch = nil
	return nil
}

// closeThread submits the open thread's last batch and releases its hold;
// the thread finishes when its last batch does.
func (d *dispatcher) closeThread(ctx context.Context) error {
	j := d.cur
	if j == nil {
		return nil
	}
	d.cur = nil
	if err := d.submit(ctx, j); err != nil {
		return err
	}
	return d.im.release(ctx, j)
}

func (im *Importer) saveBatch(ctx context.Context, t batchTask) error {
	cfg := noIndexing
	if im.Index {
		cfg = nil
	}
	saved, err := im.Memory.SaveMessagesBulk(ctx, t.msgs, cfg)
	if err != nil {
		return err
	}
	t.job.saved(saved)
	im.Saved.Add(int64(len(saved)))
	im.Dropped.Add(int64(len(t.msgs) - len(saved)))
	if im.Progress != nil {
		im.Progress(len(t.msgs))
	}
	return im.release(ctx, t.job)
}

// release drops one hold on j and finishes the thread when none is left.
func (im *Importer) release(ctx context.Context, j *threadJob) error {
	if j.pending.Add(-1) > 0 {
		return nil
	}
	if err := im.finish(ctx, j); err != nil {
		return err
	}
	im.mu.Lock()
	delete(im.inflight, j.first)
	im.mu.Unlock()
	return nil
}

// finish writes what follows a thread's messages: boundary, working memory,
// observations, and last the thread itself again to restore its UpdatedAt
// (every save of messages bumps it). A Source without UpdatedAt gets the
// newest stored message time, so importing again changes nothing.
func (im *Importer) finish(ctx context.Context, j *threadJob) error {
	t := j.thread
	if t.Boundary != nil {
		if _, err := im.Store.AdvanceBoundary(ctx, t.ID, t.ResourceID, *t.Boundary); err != nil {
			return err
		}
	}
	if j.wm != nil {
		if err := putWorkingMemory(ctx, im.Store, store.ScopeThread, t.ID, j.wm.Data); err != nil {
			return err
		}
	}
	if err := putObservations(ctx, im.Store, j.obs); err != nil {
		return err
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = j.lastAt
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = t.CreatedAt
	}
	t.Boundary = nil
	_, err := im.Store.SaveThread(ctx, t)
	return err
}

func (im *Importer) resource(ctx context.Context, r export.ResourceDoc) error {
	if len(r.Metadata) > 0 {
		if _, err := im.Store.UpdateResource(ctx, r.ID, r.Metadata); err != nil {
			return err
		}
	}
	if r.WorkingMemory == "" {
		return nil
	}
	return putWorkingMemory(ctx, im.Store, store.ScopeResource, r.ID, r.WorkingMemory)
}

// putWorkingMemory stores data unless it is already what is stored.
func putWorkingMemory(ctx context.Context, s *store.Checked, scope store.Scope, id, data string) error {
	cur, err := s.GetWorkingMemory(ctx, scope, id)
	if err != nil || (cur.Version > 0 && cur.Data == data) {
		return err
	}
	_, err = s.PutWorkingMemory(ctx, scope, id, data, cur.Version)
	return err
}

// putObservations replays the generations of one key (archived ones oldest
// first, then the active one) unless the store already holds the active one
// or a later generation.
func putObservations(ctx context.Context, s *store.Checked, docs []export.ObservationDoc) error {
	if len(docs) == 0 {
		return nil
	}
	active := docs[len(docs)-1]
	cur, err := s.GetObservations(ctx, active.Key)
	if err != nil {
		return err
	}
	if cur.Version > 0 && (cur.Generation > active.Generation ||
		cur.Generation == active.Generation && cur.Observations == active.Observations && cur.LastObservedAt.Equal(active.LastObservedAt) &&
			(active.Buffer == nil || !cur.Buffer.Empty())) {
		return nil
	}
	for _, d := range docs {
		if cur.Version > 0 && d.Generation < cur.Generation {
			continue
		}
		if cur, err = s.PutObservations(ctx, d.StoreRecord(), cur.Version); err != nil {
			return err
		}
	}
	return nil
}

// importWorkers is the number of batches saved at once: tokenization keeps a
// core busy per batch, and while one batch waits on the database another
// tokenizes. AGENTMEM_IMPORT_WORKERS overrides it (benchmarks).
func importWorkers() int {
	if n, err := strconv.Atoi(os.Getenv("AGENTMEM_IMPORT_WORKERS")); err == nil && n > 0 {
		return n
	}
	return 2 * runtime.GOMAXPROCS(0)
}

// Interrupted tells whether err is the user's Ctrl-C.
func Interrupted(err error) bool { return errors.Is(err, context.Canceled) }
