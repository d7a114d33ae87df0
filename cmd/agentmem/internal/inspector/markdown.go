package inspector

import (
	"html/template"
	"strconv"
	"strings"
)

// renderMarkdown renders the small markdown subset working memory uses
// (headings, bullet and numbered lists, paragraphs, **bold** and `code`)
// as HTML. Every piece of text is escaped and no link, image or raw HTML
// is produced, so stored text can never become markup.
func renderMarkdown(src string) template.HTML {
	var b strings.Builder
	inList := false
	closeList := func() {
		if inList {
			b.WriteString("</ul>\n")
			inList = false
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			closeList()
		case headingLevel(t) > 0:
			closeList()
			n := headingLevel(t)
			tag := "h" + strconv.Itoa(min(n, 4)+1) // # → h2 (the page owns h1), #### and deeper → h5
			b.WriteString("<" + tag + ">" + inline(strings.TrimSpace(t[n:])) + "</" + tag + ">\n")
		case listItem(t) != "":
			if !inList {
				b.WriteString("<ul>\n")
				inList = true
			}
			b.WriteString("<li>" + inline(listItem(t)) + "</li>\n")
		default:
			closeList()
			b.WriteString("<p>" + inline(t) + "</p>\n")
		}
	}
	closeList()
	return template.HTML(b.String()) // #nosec: built only from escaped text and fixed tags
}

// headingLevel returns n for a line "#…# text" with n ≤ 6 hashes, else 0.
func headingLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(t) || t[n] != ' ' {
		return 0
	}
	return n
}

// listItem returns the text of a "- x", "* x" or "1. x" line, else "".
func listItem(t string) string {
	for _, p := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			return strings.TrimSpace(rest)
		}
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && strings.HasPrefix(t[i:], ". ") {
		return strings.TrimSpace(t[i+2:])
	}
	return ""
}

// spans are the inline markups: delimiter and tag.
var spans = []struct{ delim, tag string }{{"**", "strong"}, {"`", "code"}}

// inline escapes text and renders **bold** and `code` spans; an unclosed
// delimiter stays text.
func inline(t string) string {
	var b strings.Builder
	for {
		at, which := -1, -1
		for i, sp := range spans {
			if j := strings.Index(t, sp.delim); j >= 0 && (at < 0 || j < at) {
				at, which = j, i
			}
		}
		if at < 0 {
			break
		}
		sp := spans[which]
		rest := t[at+len(sp.delim):]
		end := strings.Index(rest, sp.delim)
		if end < 0 {
			break
		}
		b.WriteString(template.HTMLEscapeString(t[:at]))
		b.WriteString("<" + sp.tag + ">" + template.HTMLEscapeString(rest[:end]) + "</" + sp.tag + ">")
		t = rest[end+len(sp.delim):]
	}
	b.WriteString(template.HTMLEscapeString(t))
	return b.String()
}
