package message

import "unicode/utf8"

// appendStoredText writes text parts as encoding/json writes the stored
// text shape (see isStoredText).
func appendStoredText(dst []byte, parts []Part) []byte {
	dst = append(dst, `{"format":2,"parts":[`...)
	for i := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"text":`...)
		dst = appendJSONString(dst, parts[i].Text)
		dst = append(dst, `,"type":"text"}`...)
	}
	return append(dst, "]}"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s exactly as encoding/json does by default: HTML
// characters, control characters, U+2028 and U+2029 escaped, invalid UTF-8
// replaced by \ufffd.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
