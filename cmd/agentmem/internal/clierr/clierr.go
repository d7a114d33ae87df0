// Package clierr holds the error codes the agentmem command adds to core's,
// shared by the command and its import and migration packages.
package clierr

import "github.com/agentmem/agentmem/core/memerr"

// Error codes of the command itself; core's codes cover everything else.
const (
	// CodeUsage: bad arguments or flags.
	CodeUsage memerr.Code = "AGENTMEM_USAGE"
	// CodeBadInput: an import file or source that cannot be read as given.
	CodeBadInput memerr.Code = "AGENTMEM_BAD_INPUT"
)

// Usage is a CodeUsage error. It names no operation: the command's error
// line already starts with "agentmem:".
func Usage(format string, args ...any) error {
	return memerr.Errorf(CodeUsage, "", format, args...)
}
