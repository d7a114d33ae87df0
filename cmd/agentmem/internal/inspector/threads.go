package inspector

import (
	"context"
	"github.com/agentmem/agentmem/core/message"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/store"
)

// threadsPerPage is the page size of the thread list.
const threadsPerPage = 50

// scanPageSize is the store page size used when searching titles, which
// the store cannot filter by.
const scanPageSize = 500

// threadRow is one line of the thread list.
type threadRow struct {
	Thread   store.Thread
	Messages int
	LastRole string
	LastText string
	LastAt   time.Time
}

// threadsData is the thread list page's data.
type threadsData struct {
	Resource, Query string
	Rows            []threadRow
	Total           int
	Page            int // 0-based
	PageNo          int // 1-based, for people
	PrevURL         string
	NextURL         string
}

// threadList shows the threads, newest activity first, filtered by
// resource (exact) and by a search in titles and ids.
func (s *server) threadList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := threadsData{Resource: strings.TrimSpace(q.Get("resource")), Query: strings.TrimSpace(q.Get("q"))}
	page, err := pageParam(q.Get("page"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Page, d.PageNo = page, page+1
	threads, total, more, err := s.findThreads(r.Context(), d.Resource, d.Query, page)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d.Total = total
	for _, t := range threads {
		row, err := s.threadRow(r.Context(), t)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		d.Rows = append(d.Rows, row)
	}
	if page > 0 {
		d.PrevURL = listURL(d.Resource, d.Query, page-1)
	}
	if more {
		d.NextURL = listURL(d.Resource, d.Query, page+1)
	}
	s.render(w, r, http.StatusOK, "threads", "Threads", d)
}

// findThreads returns one page of threads by last activity. Without a
// search text the store pages; with one, the resource's threads are
// scanned and filtered here (the store has no title search).
func (s *server) findThreads(ctx context.Context, resource, search string, page int) (threads []store.Thread, total int, more bool, err error) {
	base := store.ThreadQuery{ResourceID: resource, OrderBy: "updatedAt", Direction: store.Desc}
	if search == "" {
		base.Page, base.PerPage = page, threadsPerPage
		p, err := s.store.ListThreads(ctx, base)
		if err != nil {
			return nil, 0, false, err
		}
		return p.Threads, p.Total, p.HasMore, nil
	}
	needle := strings.ToLower(search)
	var matched []store.Thread
	base.PerPage = scanPageSize
	for base.Page = 0; ; base.Page++ {
		p, err := s.store.ListThreads(ctx, base)
		if err != nil {
			return nil, 0, false, err
		}
		for _, t := range p.Threads {
			if strings.Contains(strings.ToLower(t.Title), needle) || strings.Contains(strings.ToLower(t.ID), needle) {
				matched = append(matched, t)
			}
		}
		if !p.HasMore {
			break
		}
	}
	lo := min(page*threadsPerPage, len(matched))
	hi := min(lo+threadsPerPage, len(matched))
	return matched[lo:hi], len(matched), hi < len(matched), nil
}

// threadRow counts a thread's messages and loads its newest one.
func (s *server) threadRow(ctx context.Context, t store.Thread) (threadRow, error) {
	p, err := s.store.ListMessages(ctx, store.MessageQuery{ThreadID: t.ID, PerPage: 1, Direction: store.Desc, IncludeTotal: true})
	if err != nil {
		return threadRow{}, err
	}
	row := threadRow{Thread: t, Messages: p.Total, LastAt: t.UpdatedAt}
	if len(p.Messages) == 1 {
		last := p.Messages[0]
		row.LastRole, row.LastText = string(last.Role), clip(summary(&last), 120)
		if last.CreatedAt.After(row.LastAt) {
			row.LastAt = last.CreatedAt
		}
	}
	return row, nil
}

// summary is a one-line description of a message: its text, else its parts.
func summary(m *message.Message) string {
	if t := m.Text(); strings.TrimSpace(t) != "" {
		return t
	}
	var parts []string
	for _, p := range m.Content.Parts {
		if p.ToolInvocation != nil {
			parts = append(parts, "["+p.ToolInvocation.ToolName+" "+p.ToolInvocation.State+"]")
		} else {
			parts = append(parts, "["+p.Type+"]")
		}
	}
	return strings.Join(parts, " ")
}

func listURL(resource, search string, page int) string {
	v := url.Values{}
	if resource != "" {
		v.Set("resource", resource)
	}
	if search != "" {
		v.Set("q", search)
	}
	if page > 0 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// pageParam parses a page number ("" is 0).
func pageParam(v string) (int, error) {
	return intParam("page", v, 0, 0, 1<<20)
}

// intParam parses an integer form value within [lo, hi]; "" gives def.
func intParam(name, v string, def, lo, hi int) (int, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badRequest{msg: name + " must be a whole number from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi)}
	}
	return n, nil
}
