package inspector

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/memstore"
)

func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{badRequest{msg: "x"}, http.StatusBadRequest},
		{memerr.Errorf(core.CodeThreadNotFound, "op", "x"), http.StatusNotFound},
		{memerr.Errorf(core.CodeInvalidArgument, "op", "x"), http.StatusBadRequest},
		{memerr.Errorf(core.CodeConflict, "op", "x"), http.StatusConflict},
		{memerr.Errorf(core.CodeVector, "op", "x"), http.StatusBadGateway},
		{memerr.Errorf(core.CodeUnsupported, "op", "x"), http.StatusNotImplemented},
		{&core.Error{Code: core.CodeDeadlineExceeded, Err: context.DeadlineExceeded}, http.StatusServiceUnavailable},
		{memerr.Errorf(core.CodeStorage, "op", "x"), http.StatusInternalServerError},
		{errors.New("plain"), http.StatusInternalServerError},
	} {
		if got := statusOf(tc.err); got != tc.want {
			t.Errorf("statusOf(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// bareStore has the methods of store.Store and none of the optional
// capabilities (no observations, resources or index queue).
type bareStore struct{ store.Store }

func TestStoreWithoutOptionalCapabilities(t *testing.T) {
	mem, err := core.New(core.Options{Store: bareStore{memstore.New()}})
	if err != nil {
		t.Fatal(err)
	}
	th, err := mem.CreateThread(bg, core.ThreadInput{ResourceID: "r", Title: "bare"})
	if err != nil {
		t.Fatal(err)
	}
	runTurn(t, mem, th, []core.Message{core.NewMessage(core.RoleUser, "hello")}, core.NewMessage(core.RoleAssistant, "hi"))
	h, err := New(Options{Memory: mem})
	if err != nil {
		t.Fatal(err)
	}
	w := get(h, threadURL(th.ID, 0))
	wantStatus(t, w, http.StatusOK)
	wantContains(t, w.Body.String(), "bare", "No observations", "hello")
	wantStatus(t, get(h, "/thread/state?id="+th.ID), http.StatusOK)
	wantStatus(t, get(h, promptURL(th.ID, "input", "again?")), http.StatusOK)
}
