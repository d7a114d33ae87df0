// Package memerr defines agentmem's error values: the *Error type with a
// stable Code, one immutable sentinel per code for errors.Is, and the
// helpers drivers use to report failures.
//
// Applications use the same names through package core (core.Error,
// core.ErrThreadNotFound, …); drivers import memerr directly so that they do
// not depend on the engine.
package memerr

import (
	"context"
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code.
type Code string

// Error codes returned by agentmem and by every Store and VectorStore.
const (
	CodeNoStorage         Code = "MEMORY_NO_STORAGE"
	CodeMissingThreadID   Code = "MEMORY_MISSING_THREAD_ID"
	CodeMissingResourceID Code = "MEMORY_MISSING_RESOURCE_ID"
	CodeThreadNotFound    Code = "MEMORY_THREAD_NOT_FOUND"
	CodeThreadExists      Code = "MEMORY_THREAD_EXISTS"
	CodeResourceMismatch  Code = "MEMORY_THREAD_RESOURCE_MISMATCH"
	CodeInvalidMessage    Code = "MEMORY_INVALID_MESSAGE"
	CodeMessageTooLarge   Code = "MEMORY_MESSAGE_TOO_LARGE"
	CodeInvalidArgument   Code = "MEMORY_INVALID_ARGUMENT"
	CodeInvalidConfig     Code = "MEMORY_INVALID_CONFIG"
	CodeConflict          Code = "MEMORY_CONFLICT"
	CodeNotFound          Code = "MEMORY_NOT_FOUND"
	CodeStorage           Code = "MEMORY_STORAGE_FAILED"
	// CodeStorageUnavailable reports that the storage could not be reached
	// or would not take the operation for now: the connection was lost, the
	// server is shutting down or starting up, or the server reached is a
	// read-only standby (a failover in progress). A write that failed so
	// may or may not have been applied; every agentmem write can be run
	// again (Commit and Step save under the same ids), so retry after a
	// short backoff. errors.Is(err, ErrStorage) holds for it too.
	CodeStorageUnavailable         Code = "MEMORY_STORAGE_UNAVAILABLE"
	CodeVector                     Code = "MEMORY_VECTOR_FAILED"
	CodeNoVectorStore              Code = "MEMORY_NO_VECTOR_STORE"
	CodeNoEmbedder                 Code = "MEMORY_NO_EMBEDDER"
	CodeEmbeddingDimensionMismatch Code = "MASTRA_MEMORY_EMBEDDING_DIMENSION_MISMATCH"
	CodeEmbeddingDimensionFailed   Code = "MASTRA_MEMORY_GET_EMBEDDING_DIMENSION_FAILED"
	CodeWorkingMemoryDisabled      Code = "MEMORY_WORKING_MEMORY_DISABLED"
	CodeTokenLimit                 Code = "MEMORY_TOKEN_LIMIT"
	CodeObservation                Code = "MEMORY_OBSERVATION_FAILED"
	CodeUnsupported                Code = "MEMORY_UNSUPPORTED"
	// CodeIndexVersionMismatch reports a vector index built by another
	// analyzer or indexing version than the one configured; Reindex repairs it.
	CodeIndexVersionMismatch Code = "MEMORY_INDEX_VERSION_MISMATCH"
	// CodeCanceled and CodeDeadlineExceeded report that the caller's context
	// ended; the *Error wraps context.Canceled or context.DeadlineExceeded,
	// so errors.Is works with both the context error and the sentinel.
	CodeCanceled         Code = "MEMORY_CANCELED"
	CodeDeadlineExceeded Code = "MEMORY_DEADLINE_EXCEEDED"
	// CodeTooLarge reports a value over its configured cap (a title or
	// working memory); the message names the limit.
	CodeTooLarge Code = "MEMORY_TOO_LARGE"
)

// Error is the error type of agentmem. Compare with errors.Is against the
// sentinel values below (codes match) or inspect with errors.As.
type Error struct {
	Code Code   // stable code
	Op   string // operation, e.g. "SaveMessages"
	Msg  string // human-readable detail
	Err  error  // underlying cause, if any
}

// Error formats the error as "op: msg: cause".
func (e *Error) Error() string {
	s := e.Msg
	if e.Op != "" {
		s = e.Op + ": " + s
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is a Sentinel or an *Error with the same code;
// ErrStorage also matches CodeStorageUnavailable, a storage failure too.
func (e *Error) Is(target error) bool {
	var code Code
	switch t := target.(type) {
	case Sentinel:
		code = t.code
	case *Error:
		code = t.Code
	default:
		return false
	}
	return code == e.Code || (code == CodeStorage && e.Code == CodeStorageUnavailable)
}

// Sentinel is an immutable error value naming one Code. errors.Is(err, s)
// holds for every *Error with that code; the error values returned by
// agentmem are always *Error, never a Sentinel itself.
type Sentinel struct {
	code Code
	msg  string
}

// NewSentinel returns the sentinel of a code of the caller's own, for
// packages built on agentmem that define further codes.
func NewSentinel(code Code, msg string) Sentinel { return Sentinel{code, msg} }

// Error returns the sentinel's default message.
func (s Sentinel) Error() string { return s.msg }

// Code returns the sentinel's code.
func (s Sentinel) Code() Code { return s.code }

// Msg returns the sentinel's default message (kept for code that read the
// Msg field of the former pointer sentinels).
func (s Sentinel) Msg() string { return s.msg }

// New returns an *Error with the sentinel's code and message, attributed to op.
func (s Sentinel) New(op string) *Error { return &Error{Code: s.code, Op: op, Msg: s.msg} }

// Sentinel errors, one per code; use with errors.Is.
var (
	ErrNoStorage                  = Sentinel{CodeNoStorage, "Memory requires a storage provider to function"}
	ErrMissingThreadID            = Sentinel{CodeMissingThreadID, "threadId must be a non-empty string"}
	ErrMissingResourceID          = Sentinel{CodeMissingResourceID, "resourceId must be a non-empty string"}
	ErrThreadNotFound             = Sentinel{CodeThreadNotFound, "thread not found"}
	ErrThreadExists               = Sentinel{CodeThreadExists, "thread already exists"}
	ErrResourceMismatch           = Sentinel{CodeResourceMismatch, "thread belongs to another resource"}
	ErrInvalidMessage             = Sentinel{CodeInvalidMessage, "invalid message"}
	ErrMessageTooLarge            = Sentinel{CodeMessageTooLarge, "message too large"}
	ErrInvalidArgument            = Sentinel{CodeInvalidArgument, "invalid argument"}
	ErrInvalidConfig              = Sentinel{CodeInvalidConfig, "invalid memory config"}
	ErrConflict                   = Sentinel{CodeConflict, "concurrent update conflict"}
	ErrNotFound                   = Sentinel{CodeNotFound, "not found"}
	ErrStorage                    = Sentinel{CodeStorage, "storage operation failed"}
	ErrStorageUnavailable         = Sentinel{CodeStorageUnavailable, "storage unavailable; retry"}
	ErrVector                     = Sentinel{CodeVector, "vector operation failed"}
	ErrNoVectorStore              = Sentinel{CodeNoVectorStore, "Semantic recall requires a vector store to be configured"}
	ErrNoEmbedder                 = Sentinel{CodeNoEmbedder, "Semantic recall requires an embedder to be configured"}
	ErrEmbeddingDimensionMismatch = Sentinel{CodeEmbeddingDimensionMismatch, "embedding dimension mismatch"}
	ErrEmbeddingDimensionFailed   = Sentinel{CodeEmbeddingDimensionFailed, "Failed to determine the embedder's output dimension"}
	ErrWorkingMemoryDisabled      = Sentinel{CodeWorkingMemoryDisabled, "Working memory is not enabled for this memory instance"}
	ErrTokenLimit                 = Sentinel{CodeTokenLimit, "token limit exceeded"}
	ErrObservation                = Sentinel{CodeObservation, "observational memory model call failed"}
	ErrUnsupported                = Sentinel{CodeUnsupported, "the store does not support this operation"}
	ErrIndexVersionMismatch       = Sentinel{CodeIndexVersionMismatch, "the vector index was built with another analyzer or indexing version; run ReindexResource"}
	ErrCanceled                   = Sentinel{CodeCanceled, "canceled"}
	ErrDeadlineExceeded           = Sentinel{CodeDeadlineExceeded, "deadline exceeded"}
	ErrTooLarge                   = Sentinel{CodeTooLarge, "value over its size limit"}
)

// Errorf returns an *Error with the given code, operation and formatted detail.
func Errorf(code Code, op, format string, args ...any) *Error {
	return &Error{Code: code, Op: op, Msg: fmt.Sprintf(format, args...)}
}

// Context returns the *Error for an ended context (CodeCanceled or
// CodeDeadlineExceeded, wrapping the context error), or nil when err is
// neither context.Canceled nor context.DeadlineExceeded.
func Context(op string, err error) *Error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeCanceled, Op: op, Msg: "canceled", Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeDeadlineExceeded, Op: op, Msg: "deadline exceeded", Err: err}
	}
	return nil
}

// WrapStorage classifies a backend failure: nil stays nil, an *Error is
// returned as it is, an ended context becomes CodeCanceled or
// CodeDeadlineExceeded (checked first, so retry loops never retry a
// cancellation), anything else becomes CodeStorage wrapping err.
func WrapStorage(op string, err error) error {
	return wrap(op, err, CodeStorage, "storage operation failed")
}

func wrap(op string, err error, code Code, msg string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if ce := Context(op, err); ce != nil {
		return ce
	}
	return &Error{Code: code, Op: op, Msg: msg, Err: err}
}

// WithOp names op on err when err is an *Error without an operation (a
// validation error made before the operation was known); other errors are
// returned as they are.
func WithOp(op string, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Op == "" {
		cp := *e
		cp.Op = op
		return &cp
	}
	return err
}

// WrapVector wraps a vector store failure of op as CodeVector with msg; an
// index-version mismatch keeps its own code, so that callers see that a
// reindex repairs it.
func WrapVector(op, msg string, err error) error {
	if errors.Is(err, ErrIndexVersionMismatch) {
		return &Error{Code: CodeIndexVersionMismatch, Op: op, Msg: ErrIndexVersionMismatch.Msg(), Err: err}
	}
	return &Error{Code: CodeVector, Op: op, Msg: msg, Err: err}
}
