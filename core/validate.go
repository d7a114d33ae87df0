package core

import (
	"strings"
	"unicode/utf8"
)

// ValidateID checks that an id is a non-blank, valid UTF-8 string without NUL.
func ValidateID(name, id string) error {
	code := CodeInvalidArgument
	switch name {
	case "threadId":
		code = CodeMissingThreadID
	case "resourceId":
		code = CodeMissingResourceID
	}
	if strings.TrimSpace(id) == "" {
		return &Error{Code: code, Msg: name + " must be a non-empty string"}
	}
	if !utf8.ValidString(id) || strings.IndexByte(id, 0) >= 0 || len(id) > 1024 {
		return &Error{Code: CodeInvalidArgument, Msg: name + " must be valid UTF-8 without NUL, at most 1024 bytes"}
	}
	return nil
}
