package core

import "github.com/agentmem/agentmem/core/memerr"

// The error model lives in package memerr; these names keep it reachable
// as core.X.

// Code is a stable, machine-readable error code.
type Code = memerr.Code

// Error is the error type of agentmem; see memerr.Error.
type Error = memerr.Error

// Error codes; see package memerr.
const (
	CodeNoStorage                  = memerr.CodeNoStorage
	CodeMissingThreadID            = memerr.CodeMissingThreadID
	CodeMissingResourceID          = memerr.CodeMissingResourceID
	CodeThreadNotFound             = memerr.CodeThreadNotFound
	CodeThreadExists               = memerr.CodeThreadExists
	CodeResourceMismatch           = memerr.CodeResourceMismatch
	CodeInvalidMessage             = memerr.CodeInvalidMessage
	CodeMessageTooLarge            = memerr.CodeMessageTooLarge
	CodeInvalidArgument            = memerr.CodeInvalidArgument
	CodeInvalidConfig              = memerr.CodeInvalidConfig
	CodeConflict                   = memerr.CodeConflict
	CodeNotFound                   = memerr.CodeNotFound
	CodeStorage                    = memerr.CodeStorage
	CodeStorageUnavailable         = memerr.CodeStorageUnavailable
	CodeVector                     = memerr.CodeVector
	CodeNoVectorStore              = memerr.CodeNoVectorStore
	CodeNoEmbedder                 = memerr.CodeNoEmbedder
	CodeEmbeddingDimensionMismatch = memerr.CodeEmbeddingDimensionMismatch
	CodeEmbeddingDimensionFailed   = memerr.CodeEmbeddingDimensionFailed
	CodeWorkingMemoryDisabled      = memerr.CodeWorkingMemoryDisabled
	CodeTokenLimit                 = memerr.CodeTokenLimit
	CodeObservation                = memerr.CodeObservation
	CodeUnsupported                = memerr.CodeUnsupported
	CodeIndexVersionMismatch       = memerr.CodeIndexVersionMismatch
	CodeCanceled                   = memerr.CodeCanceled
	CodeDeadlineExceeded           = memerr.CodeDeadlineExceeded
	CodeTooLarge                   = memerr.CodeTooLarge
)

// Sentinel errors, one per code; use with errors.Is.
var (
	ErrNoStorage                  = memerr.ErrNoStorage
	ErrMissingThreadID            = memerr.ErrMissingThreadID
	ErrMissingResourceID          = memerr.ErrMissingResourceID
	ErrThreadNotFound             = memerr.ErrThreadNotFound
	ErrThreadExists               = memerr.ErrThreadExists
	ErrResourceMismatch           = memerr.ErrResourceMismatch
	ErrInvalidMessage             = memerr.ErrInvalidMessage
	ErrMessageTooLarge            = memerr.ErrMessageTooLarge
	ErrInvalidArgument            = memerr.ErrInvalidArgument
	ErrInvalidConfig              = memerr.ErrInvalidConfig
	ErrConflict                   = memerr.ErrConflict
	ErrNotFound                   = memerr.ErrNotFound
	ErrStorage                    = memerr.ErrStorage
	ErrStorageUnavailable         = memerr.ErrStorageUnavailable
	ErrVector                     = memerr.ErrVector
	ErrNoVectorStore              = memerr.ErrNoVectorStore
	ErrNoEmbedder                 = memerr.ErrNoEmbedder
	ErrEmbeddingDimensionMismatch = memerr.ErrEmbeddingDimensionMismatch
	ErrEmbeddingDimensionFailed   = memerr.ErrEmbeddingDimensionFailed
	ErrWorkingMemoryDisabled      = memerr.ErrWorkingMemoryDisabled
	ErrTokenLimit                 = memerr.ErrTokenLimit
	ErrObservation                = memerr.ErrObservation
	ErrUnsupported                = memerr.ErrUnsupported
	ErrIndexVersionMismatch       = memerr.ErrIndexVersionMismatch
	ErrCanceled                   = memerr.ErrCanceled
	ErrDeadlineExceeded           = memerr.ErrDeadlineExceeded
	ErrTooLarge                   = memerr.ErrTooLarge
)
