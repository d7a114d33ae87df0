package inspector

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/core/memerr"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/store"
)

// messagesPerPage is how many messages the thread view shows at once.
const messagesPerPage = 100

// threadData is the thread view's data.
type threadData struct {
	Thread       store.Thread
	Metadata     string
	Messages     []messageView
	LineAt       int // index of the message the boundary line precedes; -1: no line
	Boundary     *boundaryView
	Total        int
	PageTokens   int
	Page         int
	OlderURL     string
	NewerURL     string
	WorkingMem   []wmView
	Observations []obsView
	State        string
	Live         bool // page 0 refreshes itself
}

// boundaryView describes the thread's persisted trim boundary.
type boundaryView struct {
	CreatedAt    time.Time
	IDs          int
	MaxTokens    int
	AtMaxRemove  int
	Hidden       int // messages of this page above the line
	HiddenTokens int
	Visible      int // messages of this page below it
	VisibleTok   int
	ConfigNote   string
}

// wmView is the working memory of one scope.
type wmView struct {
	Scope     store.Scope
	Owner     string // the thread or resource id
	Data      string
	Version   int64
	UpdatedAt time.Time
	JSON      string // the data indented, when it is a JSON document
	Used      bool   // the scope the inspected memory's config reads
}

// obsView is the observational-memory record of one scope.
type obsView struct {
	Scope    store.Scope
	Record   store.ObservationRecord
	Archived []store.ObservationRecord
}

// threadView shows one thread as chat bubbles with its boundary, working
// memory and observations.
func (s *server) threadView(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, err := pageParam(q.Get("page"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d, err := s.loadThread(r.Context(), q.Get("id"), page)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	title := d.Thread.Title
	if title == "" {
		title = d.Thread.ID
	}
	s.render(w, r, http.StatusOK, "thread", title, d)
}

// loadThread gathers everything the thread view shows, in named steps.
func (s *server) loadThread(ctx context.Context, id string, page int) (threadData, error) {
	if err := store.ValidateID("id", id); err != nil {
		return threadData{}, err
	}
	th, err := s.store.GetThread(ctx, id)
	if err != nil {
		return threadData{}, err
	}
	d := threadData{Thread: th, Metadata: jsonText(th.Metadata), Page: page, Live: page == 0, LineAt: -1}
	p, err := s.store.ListMessages(ctx, store.MessageQuery{ThreadID: id, Page: page, PerPage: messagesPerPage,
		Direction: store.Desc, IncludeTotal: true})
	if err != nil {
		return threadData{}, err
	}
	msgs := p.Messages
	slices.Reverse(msgs)
	d.Total = p.Total
	for _, m := range msgs {
		v := viewMessage(m)
		v.Excluded = th.Boundary != nil && th.Boundary.Excludes(m.CreatedAt, m.ID)
		d.Messages = append(d.Messages, v)
		d.PageTokens += m.Tokens
	}
	if th.Boundary != nil {
		d.Boundary, d.LineAt = s.viewBoundary(*th.Boundary, d.Messages, p.HasMore)
	}
	if p.HasMore {
		d.OlderURL = threadURL(id, page+1)
	}
	if page > 0 {
		d.NewerURL = threadURL(id, page-1)
	}
	if d.WorkingMem, err = s.workingMemory(ctx, th); err != nil {
		return threadData{}, err
	}
	if d.Observations, err = s.observations(ctx, th); err != nil {
		return threadData{}, err
	}
	d.State = stateOf(th, p.Total, d.WorkingMem, d.Observations)
	return d, nil
}

// viewBoundary places the boundary line after the last excluded message of
// the page (at the top when the whole page is newer than the boundary but
// older pages exist) and sums what lies on either side.
func (s *server) viewBoundary(b store.Boundary, msgs []messageView, older bool) (*boundaryView, int) {
	v := &boundaryView{CreatedAt: b.CreatedAt, IDs: len(b.MessageIDs), MaxTokens: b.MaxTokens, AtMaxRemove: b.AtMaxRemoveTokens}
	line := -1
	for i, m := range msgs {
		if m.Excluded {
			line = i + 1
			v.Hidden++
			v.HiddenTokens += m.Tokens
		} else {
			v.Visible++
			v.VisibleTok += m.Tokens
		}
	}
	if line < 0 && older && len(msgs) > 0 && b.CreatedAt.Before(msgs[0].CreatedAt) {
		line = 0
	}
	if h := s.mem.Config().MessageHistory; h != nil && h.MaxTokens > 0 {
		remove := h.MaxTokens / 4
		if h.AtMaxRemoveTokens != nil {
			remove = *h.AtMaxRemoveTokens
		}
		if h.MaxTokens != b.MaxTokens || remove != b.AtMaxRemoveTokens {
			v.ConfigNote = fmt.Sprintf("The inspected memory is configured with a budget of %d (remove %d), "+
				"so a turn under that configuration ignores this boundary.", h.MaxTokens, remove)
		}
	}
	return v, line
}

// workingMemory loads the thread- and resource-scoped working memory.
func (s *server) workingMemory(ctx context.Context, th store.Thread) ([]wmView, error) {
	used := store.ScopeResource
	if wc := s.mem.Config().WorkingMemory; wc != nil && wc.Scope != "" {
		used = wc.Scope
	}
	var out []wmView
	for _, sc := range []struct {
		scope store.Scope
		owner string
	}{{store.ScopeThread, th.ID}, {store.ScopeResource, th.ResourceID}} {
		wm, err := s.store.GetWorkingMemory(ctx, sc.scope, sc.owner)
		if err != nil {
			return nil, err
		}
		v := wmView{Scope: sc.scope, Owner: sc.owner, Data: wm.Data, Version: wm.Version, UpdatedAt: wm.UpdatedAt, Used: sc.scope == used}
		if t := strings.TrimSpace(wm.Data); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			if json.Valid([]byte(t)) {
				v.JSON = prettyJSON([]byte(t))
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// observations loads the thread- and resource-scoped observation records
// that were ever written, with their archived generations; none when the
// store does not keep observations.
func (s *server) observations(ctx context.Context, th store.Thread) ([]obsView, error) {
	var out []obsView
	for _, scope := range []store.Scope{store.ScopeThread, store.ScopeResource} {
		key := store.ObservationKey(scope, th.ID, th.ResourceID)
		rec, err := s.store.GetObservations(ctx, key)
		if errors.Is(err, memerr.ErrUnsupported) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if rec.Version == 0 {
			continue
		}
		archived, err := s.store.ListObservationGenerations(ctx, key)
		if err != nil {
			return nil, err
		}
		out = append(out, obsView{Scope: scope, Record: rec, Archived: archived})
	}
	return out, nil
}

// stateOf fingerprints what the thread view shows, so the page can poll
// for a change cheaply.
func stateOf(th store.Thread, total int, wm []wmView, obs []obsView) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%d|", th.UpdatedAt.Format(time.RFC3339Nano), total)
	if b := th.Boundary; b != nil {
		fmt.Fprintf(h, "%s|%v|%d|%d|", b.CreatedAt.Format(time.RFC3339Nano), b.MessageIDs, b.MaxTokens, b.AtMaxRemoveTokens)
	}
	for _, v := range wm {
		fmt.Fprintf(h, "%s:%d|", v.Scope, v.Version)
	}
	for _, o := range obs {
		fmt.Fprintf(h, "%s:%d|", o.Scope, o.Record.Version)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// threadState answers the live view's poll with the thread's fingerprint,
// reading only what the fingerprint covers.
func (s *server) threadState(w http.ResponseWriter, r *http.Request) {
	state, err := s.currentState(r.Context(), r.URL.Query().Get("id"))
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(statusOf(err))
		_ = json.NewEncoder(w).Encode(map[string]string{"error": http.StatusText(statusOf(err))})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"state": state})
}

func (s *server) currentState(ctx context.Context, id string) (string, error) {
	if err := store.ValidateID("id", id); err != nil {
		return "", err
	}
	th, err := s.store.GetThread(ctx, id)
	if err != nil {
		return "", err
	}
	p, err := s.store.ListMessages(ctx, store.MessageQuery{ThreadID: id, IncludeTotal: true})
	if err != nil {
		return "", err
	}
	wm, err := s.workingMemory(ctx, th)
	if err != nil {
		return "", err
	}
	obs, err := s.observations(ctx, th)
	if err != nil {
		return "", err
	}
	return stateOf(th, p.Total, wm, obs), nil
}

func threadURL(id string, page int) string {
	v := url.Values{"id": {id}}
	if page > 0 {
		v.Set("page", strconv.Itoa(page))
	}
	return "/thread?" + v.Encode()
}
