package importer

import (
	"context"
	"errors"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"sync/atomic"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core/store"
)

// Plan is what the checking pass learns about an input: its counts and the
// records it skips, by reason.
type Plan struct {
	Records  int
	Messages int
	Threads  int
	Skipped  map[string]int
}

// checker validates records in order: structure, references between
// records, and ownership against the target store (a thread or message id
// that belongs to another resource there), so that bad input fails before
// anything is written.
type checker struct {
	src     *Source
	store   *store.Checked
	owner   map[string]string // thread id -> resource id, as declared in the input
	cur     string            // the thread whose lines may follow
	plan    Plan
	pending idPage      // messages whose ids are checked against the store in pages
	pages   chan idPage // pages for the background check
	failed  atomic.Bool // a page failed its check: stop reading
	pageErr error       // the first page's failure, set before failed
}

// idPage is a page of message ids to check against the store: each id
// with its resource and line.
type idPage struct {
	ids, resources []string
	lines          []int
}

// errPageFailed stops the reading when a background page check failed.
var errPageFailed = errors.New("import: a page of message ids failed its check")

// Check reads the whole source once, keeping every valid record in sp for
// the import pass, and returns its Plan, or the first problem with its
// position. Message ids are checked against the store in pages, in the
// background and in order, while reading goes on: a page's failure is at
// an earlier line than anything reading meets after handing it over, so it
// is the error reported, as if the pages were checked in line.
func Check(ctx context.Context, src *Source, s *store.Checked, sp *Spool) (Plan, error) {
	c := &checker{src: src, store: s, owner: map[string]string{}, plan: Plan{Skipped: map[string]int{}}, pages: make(chan idPage, 2)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.checkPages(ctx)
	}()
	skip := func(reason string) { c.plan.Skipped[reason]++ }
	err := src.Each(ctx, func(n int, r export.Record) error {
		if c.failed.Load() {
			return errPageFailed
		}
		c.plan.Records++
		if err := c.record(ctx, n, r); err != nil {
			return err
		}
		if err := sp.put(n, r); err != nil {
			return err
		}
		if len(c.pending.ids) >= export.PageSize {
			c.handOver()
		}
		return nil
	}, skip)
	if err == nil {
		c.handOver()
	}
	close(c.pages)
	<-done
	if c.failed.Load() {
		return c.plan, c.pageErr
	}
	return c.plan, err
}

func (c *checker) record(ctx context.Context, n int, r export.Record) error {
	switch r.Kind {
	case export.KindResource:
		if r.Resource == nil {
			return BadInput(c.src, n, "resource line without \"resource\"")
		}
		c.cur = ""
		return c.validID(n, "resource id", r.Resource.ID)
	case export.KindThread:
		return c.thread(ctx, n, r.Thread)
	case export.KindMessage:
		return c.message(n, r.Message)
	case export.KindWorkingMemory:
		if r.WorkingMemory == nil {
			return BadInput(c.src, n, "workingMemory line without \"workingMemory\"")
		}
		return c.knownThread(n, r.WorkingMemory.ThreadID)
	case export.KindObservations:
		return c.observations(n, r.Observations)
	case export.KindHeader:
		return BadInput(c.src, n, "a second header")
	}
	return BadInput(c.src, n, "unknown kind %q", r.Kind)
}

func (c *checker) validID(n int, what, id string) error {
	if err := store.ValidateID(what, id); err != nil {
		return BadInput(c.src, n, "%v", err)
	}
	return nil
}

func (c *checker) thread(ctx context.Context, n int, t *store.Thread) error {
	if t == nil {
		return BadInput(c.src, n, "thread line without \"thread\"")
	}
	if err := errors.Join(c.validID(n, "thread id", t.ID), c.validID(n, "resource id", t.ResourceID)); err != nil {
		return err
	}
	if _, dup := c.owner[t.ID]; dup {
		return BadInput(c.src, n, "thread %q appears twice", t.ID)
	}
	c.owner[t.ID], c.cur = t.ResourceID, t.ID
	c.plan.Threads++
	stored, err := c.store.GetThread(ctx, t.ID)
	switch {
	case errors.Is(err, memerr.ErrThreadNotFound):
		return nil
	case err != nil:
		return err
	case stored.ResourceID != t.ResourceID:
		return BadInput(c.src, n, "thread %q belongs to resource %q in the target, not %q", t.ID, stored.ResourceID, t.ResourceID)
	}
	return nil
}

// knownThread requires id to be the thread of the last thread line: a
// thread's messages, working memory and observations follow it directly.
func (c *checker) knownThread(n int, id string) error {
	if id == "" || id != c.cur {
		return BadInput(c.src, n, "thread %q is not the thread of the preceding thread line", id)
	}
	return nil
}

func (c *checker) message(n int, m *message.Message) error {
	if m == nil {
		return BadInput(c.src, n, "message line without \"message\"")
	}
	if err := c.validID(n, "message id", m.ID); err != nil {
		return err
	}
	if err := c.knownThread(n, m.ThreadID); err != nil {
		return err
	}
	if res := c.owner[m.ThreadID]; m.ResourceID != res {
		return BadInput(c.src, n, "message %q has resource %q but its thread %q belongs to %q", m.ID, m.ResourceID, m.ThreadID, res)
	}
	if m.CreatedAt.IsZero() {
		return BadInput(c.src, n, "message %q has no createdAt", m.ID)
	}
	switch m.Role {
	case message.RoleUser, message.RoleAssistant, message.RoleSignal:
	default:
		return BadInput(c.src, n, "message %q: role %q cannot be stored (user, assistant or signal)", m.ID, m.Role)
	}
	c.plan.Messages++
	c.pending.ids, c.pending.resources = append(c.pending.ids, m.ID), append(c.pending.resources, m.ResourceID)
	c.pending.lines = append(c.pending.lines, n)
	return nil
}

// handOver gives the pending page to the background check.
func (c *checker) handOver() {
	if len(c.pending.ids) > 0 {
		c.pages <- c.pending
		c.pending = idPage{}
	}
}

// checkPages checks the handed-over pages in order until one fails.
func (c *checker) checkPages(ctx context.Context) {
	for p := range c.pages {
		if c.failed.Load() {
			continue
		}
		if err := c.checkPage(ctx, p); err != nil {
			c.pageErr = err
			c.failed.Store(true)
		}
	}
}

// checkPage refuses message ids that belong to another resource in the
// target store (SaveMessages would refuse the takeover mid-import).
func (c *checker) checkPage(ctx context.Context, p idPage) error {
	stored, err := c.store.GetMessages(ctx, p.ids)
	if err != nil {
		return err
	}
	owner := make(map[string]string, len(stored))
	for _, m := range stored {
		owner[m.ID] = m.ResourceID
	}
	for i, id := range p.ids {
		if res, ok := owner[id]; ok && res != p.resources[i] {
			return BadInput(c.src, p.lines[i], "message %q belongs to resource %q in the target, not %q", id, res, p.resources[i])
		}
	}
	return nil
}

func (c *checker) observations(n int, o *export.ObservationDoc) error {
	if o == nil {
		return BadInput(c.src, n, "observations line without \"observations\"")
	}
	scope, id, err := store.ParseObservationKey(o.Key)
	if err != nil {
		return BadInput(c.src, n, "%v", err)
	}
	if scope == store.ScopeThread {
		return c.knownThread(n, id)
	}
	c.cur = ""
	return nil
}
