package inspector

import (
	"net/http"
	"strconv"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
)

// errReadOnly is the refusal of a write while Options.Write is off.
var errReadOnly = &memerr.Error{Code: "INSPECTOR_READ_ONLY", Op: "inspector",
	Msg: "the inspector is read-only: start it with --write to change memory"}

// writeWorkingMemory replaces the working memory of the thread or its
// resource. The form carries the version it was loaded at: a change made
// in the meantime (an agent's update) is reported as a conflict instead of
// being overwritten. The write goes through core.Memory so a JSON Schema
// of the memory's configuration is enforced.
func (s *server) writeWorkingMemory(w http.ResponseWriter, r *http.Request) {
	th, ok := s.writableThread(w, r)
	if !ok {
		return
	}
	scope := store.Scope(r.PostFormValue("scope"))
	owner := th.ResourceID
	switch scope {
	case store.ScopeThread:
		owner = th.ID
	case store.ScopeResource:
	default:
		s.fail(w, r, badRequest{msg: "scope must be thread or resource"})
		return
	}
	version, err := strconv.ParseInt(r.PostFormValue("version"), 10, 64)
	if err != nil {
		s.fail(w, r, badRequest{msg: "version must be a number"})
		return
	}
	cur, err := s.store.GetWorkingMemory(r.Context(), scope, owner)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if cur.Version != version {
		s.fail(w, r, memerr.Errorf(memerr.CodeConflict, "inspector",
			"the working memory changed since the page was loaded (version %d, now %d); reload and edit again", version, cur.Version))
		return
	}
	wc := core.WorkingMemoryConfig{}
	if c := s.mem.Config().WorkingMemory; c != nil {
		wc = *c
	}
	wc.Enabled, wc.Scope = true, scope
	if err := s.mem.UpdateWorkingMemory(r.Context(), th.ID, th.ResourceID, r.PostFormValue("data"), &core.Config{WorkingMemory: &wc}); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, threadURL(th.ID, 0)+"#working-memory", http.StatusSeeOther)
}

// deleteThread deletes a thread, its messages and its vectors.
func (s *server) deleteThread(w http.ResponseWriter, r *http.Request) {
	th, ok := s.writableThread(w, r)
	if !ok {
		return
	}
	if err := s.mem.DeleteThread(r.Context(), th.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, listURL(th.ResourceID, "", 0), http.StatusSeeOther)
}

// writableThread starts every write: it refuses in read-only mode (403) and
// loads the thread named by the form's id; false means the answer is sent.
func (s *server) writableThread(w http.ResponseWriter, r *http.Request) (store.Thread, bool) {
	if !s.opts.Write {
		s.render(w, r, http.StatusForbidden, "error", "Read-only",
			errorData{Status: http.StatusForbidden, Code: string(errReadOnly.Code), Message: errReadOnly.Error()})
		return store.Thread{}, false
	}
	id := r.PostFormValue("id")
	err := store.ValidateID("id", id)
	var th store.Thread
	if err == nil {
		th, err = s.store.GetThread(r.Context(), id)
	}
	if err != nil {
		s.fail(w, r, err)
		return store.Thread{}, false
	}
	return th, true
}
