package store

import (
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core/memerr"
)

// ValidateID checks that an id is a non-blank, valid UTF-8 string without NUL.
func ValidateID(name, id string) error {
	code := memerr.CodeInvalidArgument
	switch name {
	case "threadId":
		code = memerr.CodeMissingThreadID
	case "resourceId":
		code = memerr.CodeMissingResourceID
	}
	if strings.TrimSpace(id) == "" {
		return &memerr.Error{Code: code, Msg: name + " must be a non-empty string"}
	}
	if !utf8.ValidString(id) || strings.IndexByte(id, 0) >= 0 || len(id) > 1024 {
		return &memerr.Error{Code: memerr.CodeInvalidArgument, Msg: name + " must be valid UTF-8 without NUL, at most 1024 bytes"}
	}
	return nil
}
