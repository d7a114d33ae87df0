package memerr

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestErrorText(t *testing.T) {
	cause := errors.New("connection reset")
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{&Error{Code: CodeStorage, Msg: "write failed"}, "write failed"},
		{&Error{Code: CodeStorage, Op: "SaveMessages", Msg: "write failed"}, "SaveMessages: write failed"},
		{&Error{Code: CodeStorage, Op: "SaveMessages", Msg: "write failed", Err: cause}, "SaveMessages: write failed: connection reset"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

// TestIsByCode: errors.Is matches sentinels and *Error values by code,
// through wrapping, and never across codes.
func TestIsByCode(t *testing.T) {
	err := fmt.Errorf("outer: %w", &Error{Code: CodeThreadNotFound, Op: "GetThread", Msg: "thread t1"})
	if !errors.Is(err, ErrThreadNotFound) {
		t.Fatal("a wrapped *Error does not match its sentinel")
	}
	if !errors.Is(err, &Error{Code: CodeThreadNotFound}) {
		t.Fatal("a wrapped *Error does not match an *Error of its code")
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, &Error{Code: CodeNotFound}) {
		t.Fatal("an *Error matches another code")
	}
	// A cause keeps its own identity: the outer code and the cause's both match.
	nested := &Error{Code: CodeVector, Op: "Query", Msg: "filter", Err: ErrMissingResourceID}
	if !errors.Is(nested, ErrVector) || !errors.Is(nested, ErrMissingResourceID) || errors.Is(nested, ErrStorage) {
		t.Fatalf("nested: Is(ErrVector)=%v Is(ErrMissingResourceID)=%v Is(ErrStorage)=%v",
			errors.Is(nested, ErrVector), errors.Is(nested, ErrMissingResourceID), errors.Is(nested, ErrStorage))
	}
	var e *Error
	if !errors.As(err, &e) || e.Op != "GetThread" {
		t.Fatalf("errors.As: %v", e)
	}
}

func TestSentinel(t *testing.T) {
	s := NewSentinel("MY_CODE", "my message")
	if s.Code() != "MY_CODE" || s.Error() != "my message" || s.Msg() != "my message" {
		t.Fatalf("sentinel %q %q", s.Code(), s.Error())
	}
	e := s.New("Op")
	if e.Code != "MY_CODE" || e.Op != "Op" || e.Msg != "my message" || !errors.Is(e, s) {
		t.Fatalf("New: %+v", e)
	}
	seen := map[Code]bool{}
	for _, s := range []Sentinel{ErrNoStorage, ErrMissingThreadID, ErrMissingResourceID, ErrThreadNotFound,
		ErrThreadExists, ErrResourceMismatch, ErrInvalidMessage, ErrMessageTooLarge, ErrInvalidArgument,
		ErrInvalidConfig, ErrConflict, ErrNotFound, ErrStorage, ErrStorageUnavailable, ErrVector, ErrNoVectorStore, ErrNoEmbedder,
		ErrEmbeddingDimensionMismatch, ErrEmbeddingDimensionFailed, ErrWorkingMemoryDisabled, ErrTokenLimit,
		ErrObservation, ErrUnsupported, ErrIndexVersionMismatch, ErrCanceled, ErrDeadlineExceeded, ErrTooLarge} {
		if s.Code() == "" || s.Error() == "" || seen[s.Code()] {
			t.Errorf("sentinel %q (%q): empty or repeated code", s.Code(), s.Error())
		}
		seen[s.Code()] = true
	}
}

func TestContext(t *testing.T) {
	if Context("Op", nil) != nil || Context("Op", errors.New("other")) != nil {
		t.Fatal("Context classified an error that is no context error")
	}
	canceled := Context("Op", fmt.Errorf("read: %w", context.Canceled))
	if canceled == nil || canceled.Code != CodeCanceled || canceled.Op != "Op" || !errors.Is(canceled, context.Canceled) {
		t.Fatalf("canceled: %+v", canceled)
	}
	late := Context("Op", context.DeadlineExceeded)
	if late == nil || late.Code != CodeDeadlineExceeded || !errors.Is(late, ErrDeadlineExceeded) {
		t.Fatalf("deadline: %+v", late)
	}
}

func TestWrapStorage(t *testing.T) {
	if WrapStorage("Op", nil) != nil {
		t.Fatal("WrapStorage(nil) is not nil")
	}
	typed := &Error{Code: CodeConflict, Op: "Inner"}
	if got := WrapStorage("Op", typed); got != typed {
		t.Fatalf("an *Error was rewrapped: %v", got)
	}
	if got := WrapStorage("Op", context.Canceled); !errors.Is(got, ErrCanceled) {
		t.Fatalf("a cancellation became %v", got)
	}
	cause := errors.New("disk full")
	got := WrapStorage("Op", cause)
	var e *Error
	if !errors.As(got, &e) || e.Code != CodeStorage || e.Op != "Op" || !errors.Is(got, cause) {
		t.Fatalf("WrapStorage(cause) = %#v", got)
	}
}

func TestWithOp(t *testing.T) {
	anon := &Error{Code: CodeInvalidArgument, Msg: "bad"}
	got := WithOp("Recall", anon)
	var e *Error
	if !errors.As(got, &e) || e.Op != "Recall" || anon.Op != "" {
		t.Fatalf("WithOp named %q and left the original %q", e.Op, anon.Op)
	}
	named := &Error{Code: CodeInvalidArgument, Op: "Inner"}
	if WithOp("Outer", named) != error(named) {
		t.Fatal("WithOp renamed an *Error that had an operation")
	}
	plain := errors.New("plain")
	if WithOp("Op", plain) != plain {
		t.Fatal("WithOp changed an error that is no *Error")
	}
}

func TestWrapVector(t *testing.T) {
	got := WrapVector("Query", "query failed", errors.New("boom"))
	if !errors.Is(got, ErrVector) || got.Error() != "Query: query failed: boom" {
		t.Fatalf("WrapVector: %v", got)
	}
	stale := WrapVector("Query", "query failed", &Error{Code: CodeIndexVersionMismatch, Op: "local.Query"})
	if !errors.Is(stale, ErrIndexVersionMismatch) || errors.Is(stale, ErrVector) {
		t.Fatalf("an index-version mismatch lost its code: %v", stale)
	}
}

func TestErrorf(t *testing.T) {
	e := Errorf(CodeInvalidConfig, "New", "lastMessages must be >= %d, got %d", 0, -1)
	if e.Code != CodeInvalidConfig || e.Op != "New" || e.Msg != "lastMessages must be >= 0, got -1" || e.Err != nil {
		t.Fatalf("Errorf: %+v", e)
	}
}

func TestEnter(t *testing.T) {
	var none context.Context // a nil context is what Enter refuses
	if err := Enter(none, "Op"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("nil context: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := Enter(ctx, "Op"); err != nil {
		t.Fatalf("live context: %v", err)
	}
	cancel()
	if err := Enter(ctx, "Op"); !errors.Is(err, ErrCanceled) {
		t.Fatalf("canceled context: %v", err)
	}
}

func TestClassify(t *testing.T) {
	live := context.Background()
	ended, cancel := context.WithCancel(live)
	cancel()
	cause := errors.New("connection reset")
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want Code
		op   string
	}{
		{"plain error", live, cause, CodeVector, "Query"},
		{"context error", live, fmt.Errorf("read: %w", context.DeadlineExceeded), CodeDeadlineExceeded, "Query"},
		{"plain error after the context ended", ended, cause, CodeCanceled, "Query"},
		{"driver error without op", live, &Error{Code: CodeInvalidArgument, Msg: "bad"}, CodeInvalidArgument, "Query"},
		{"driver error with op", live, &Error{Code: CodeConflict, Op: "local.Query"}, CodeConflict, "local.Query"},
		{"driver error of the class after the context ended", ended, &Error{Code: CodeVector, Op: "local.Query"}, CodeCanceled, "Query"},
		{"other driver error after the context ended", ended, &Error{Code: CodeConflict, Op: "local.Query"}, CodeConflict, "local.Query"},
	} {
		err := Classify(c.ctx, "Query", c.err, CodeVector, "vector operation failed")
		var e *Error
		if !errors.As(err, &e) || e.Code != c.want || e.Op != c.op {
			t.Errorf("%s: %#v, want code %s and op %s", c.name, err, c.want, c.op)
		}
	}
	if Classify(live, "Query", nil, CodeVector, "") != nil {
		t.Fatal("Classify(nil) is not nil")
	}
}

// An unavailable storage is a storage failure too; not every storage failure
// is worth retrying.
func TestStorageUnavailableIsStorage(t *testing.T) {
	unavailable := &Error{Code: CodeStorageUnavailable, Op: "SaveMessages", Msg: "down"}
	if !errors.Is(unavailable, ErrStorageUnavailable) || !errors.Is(unavailable, ErrStorage) {
		t.Errorf("%v: want both ErrStorageUnavailable and ErrStorage", unavailable)
	}
	failed := WrapStorage("SaveMessages", errors.New("boom"))
	if errors.Is(failed, ErrStorageUnavailable) || !errors.Is(failed, ErrStorage) {
		t.Errorf("%v: want ErrStorage only", failed)
	}
	if errors.Is(unavailable, ErrConflict) {
		t.Errorf("%v matches ErrConflict", unavailable)
	}
}
