package core

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code.
type Code string

// Error codes returned by this package and by every Store.
const (
	CodeNoStorage                  Code = "MEMORY_NO_STORAGE"
	CodeMissingThreadID            Code = "MEMORY_MISSING_THREAD_ID"
	CodeMissingResourceID          Code = "MEMORY_MISSING_RESOURCE_ID"
	CodeThreadNotFound             Code = "MEMORY_THREAD_NOT_FOUND"
	CodeThreadExists               Code = "MEMORY_THREAD_EXISTS"
	CodeResourceMismatch           Code = "MEMORY_THREAD_RESOURCE_MISMATCH"
	CodeInvalidMessage             Code = "MEMORY_INVALID_MESSAGE"
	CodeMessageTooLarge            Code = "MEMORY_MESSAGE_TOO_LARGE"
	CodeInvalidArgument            Code = "MEMORY_INVALID_ARGUMENT"
	CodeInvalidConfig              Code = "MEMORY_INVALID_CONFIG"
	CodeConflict                   Code = "MEMORY_CONFLICT"
	CodeNotFound                   Code = "MEMORY_NOT_FOUND"
	CodeStorage                    Code = "MEMORY_STORAGE_FAILED"
	CodeVector                     Code = "MEMORY_VECTOR_FAILED"
	CodeNoVectorStore              Code = "MEMORY_NO_VECTOR_STORE"
	CodeNoEmbedder                 Code = "MEMORY_NO_EMBEDDER"
	CodeEmbeddingDimensionMismatch Code = "MASTRA_MEMORY_EMBEDDING_DIMENSION_MISMATCH"
	CodeEmbeddingDimensionFailed   Code = "MASTRA_MEMORY_GET_EMBEDDING_DIMENSION_FAILED"
	CodeWorkingMemoryDisabled      Code = "MEMORY_WORKING_MEMORY_DISABLED"
	CodeTokenLimit                 Code = "MEMORY_TOKEN_LIMIT"
	CodeObservation                Code = "MEMORY_OBSERVATION_FAILED"
)

// Error is the error type of agentmem. Compare with errors.Is against the
// sentinel values below (codes match) or inspect with errors.As.
type Error struct {
	Code Code   // stable code
	Op   string // operation, e.g. "SaveMessages"
	Msg  string // human-readable detail
	Err  error  // underlying cause, if any
}

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

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code
	}
	return false
}

// Sentinel errors, one per code; use with errors.Is.
var (
	ErrNoStorage                  = &Error{Code: CodeNoStorage, Msg: "Memory requires a storage provider to function"}
	ErrMissingThreadID            = &Error{Code: CodeMissingThreadID, Msg: "threadId must be a non-empty string"}
	ErrMissingResourceID          = &Error{Code: CodeMissingResourceID, Msg: "resourceId must be a non-empty string"}
	ErrThreadNotFound             = &Error{Code: CodeThreadNotFound, Msg: "thread not found"}
	ErrThreadExists               = &Error{Code: CodeThreadExists, Msg: "thread already exists"}
	ErrResourceMismatch           = &Error{Code: CodeResourceMismatch, Msg: "thread belongs to another resource"}
	ErrInvalidMessage             = &Error{Code: CodeInvalidMessage, Msg: "invalid message"}
	ErrMessageTooLarge            = &Error{Code: CodeMessageTooLarge, Msg: "message too large"}
	ErrInvalidArgument            = &Error{Code: CodeInvalidArgument, Msg: "invalid argument"}
	ErrInvalidConfig              = &Error{Code: CodeInvalidConfig, Msg: "invalid memory config"}
	ErrConflict                   = &Error{Code: CodeConflict, Msg: "concurrent update conflict"}
	ErrNotFound                   = &Error{Code: CodeNotFound, Msg: "not found"}
	ErrStorage                    = &Error{Code: CodeStorage, Msg: "storage operation failed"}
	ErrVector                     = &Error{Code: CodeVector, Msg: "vector operation failed"}
	ErrNoVectorStore              = &Error{Code: CodeNoVectorStore, Msg: "Semantic recall requires a vector store to be configured"}
	ErrNoEmbedder                 = &Error{Code: CodeNoEmbedder, Msg: "Semantic recall requires an embedder to be configured"}
	ErrEmbeddingDimensionMismatch = &Error{Code: CodeEmbeddingDimensionMismatch, Msg: "embedding dimension mismatch"}
	ErrEmbeddingDimensionFailed   = &Error{Code: CodeEmbeddingDimensionFailed, Msg: "Failed to determine the embedder's output dimension"}
	ErrWorkingMemoryDisabled      = &Error{Code: CodeWorkingMemoryDisabled, Msg: "Working memory is not enabled for this memory instance"}
	ErrTokenLimit                 = &Error{Code: CodeTokenLimit, Msg: "token limit exceeded"}
	ErrObservation                = &Error{Code: CodeObservation, Msg: "observational memory model call failed"}
)

// Errorf returns an *Error with the given code, operation and formatted detail.
func Errorf(code Code, op, format string, args ...any) *Error {
	return &Error{Code: code, Op: op, Msg: fmt.Sprintf(format, args...)}
}

// WrapStorage wraps a backend failure as CodeStorage unless it already is an *Error.
// Backends use it so callers can always match errors.Is(err, ErrStorage).
func WrapStorage(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: CodeStorage, Op: op, Msg: "storage operation failed", Err: err}
}
