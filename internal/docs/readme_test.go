package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// exampleRE is the comment that names where a Go block of a document comes
// from: <!-- example: FILE FUNC --> shows the function's whole body,
// <!-- example: FILE FUNC after-setup --> its body from the first blank line
// on (the lines before it set up what a program would already have).
var exampleRE = regexp.MustCompile(`^<!-- example: (\S+) (\w+)( after-setup)? -->$`)

// goBlock is a Go code block of a document and the example it names.
type goBlock struct {
	doc, file, fn string
	line          int
	afterSetup    bool
	code          string
}

// goBlocks returns every Go block of the document at path, relative to root.
func goBlocks(t *testing.T, root, path string) []goBlock {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	var out []goBlock
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```go" {
			continue
		}
		b := goBlock{doc: path, line: i + 1}
		if i > 0 {
			if m := exampleRE.FindStringSubmatch(lines[i-1]); m != nil {
				b.file, b.fn, b.afterSetup = m[1], m[2], m[3] != ""
			}
		}
		var code []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			code = append(code, lines[i])
		}
		b.code = strings.Join(code, "\n")
		out = append(out, b)
	}
	return out
}

// exampleBody returns the body of func fn in file: its lines without the
// function's one tab of indentation, up to its "// Output:" comment.
func exampleBody(t *testing.T, file, fn string, afterSetup bool) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	src := string(raw)
	start := strings.Index(src, "\nfunc "+fn+"() {\n")
	if start < 0 {
		t.Fatalf("%s has no func %s()", file, fn)
	}
	src = src[start+len("\nfunc "+fn+"() {\n"):]
	src = src[:strings.Index(src, "\n}\n")]
	var body []string
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimPrefix(l, "\t")
		if strings.HasPrefix(l, "// Output:") {
			break
		}
		body = append(body, l)
	}
	if afterSetup {
		for i, l := range body {
			if l == "" {
				body = body[i+1:]
				break
			}
		}
	}
	return strings.TrimRight(strings.Join(body, "\n"), "\n")
}

// TestDocumentedCodeCompiles: every Go block of README.md and docs/*.md is,
// byte for byte, the body of the compiled and run Example it names.
func TestDocumentedCodeCompiles(t *testing.T) {
	root := filepath.Join("..", "..")
	docs := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(root, m)
		docs = append(docs, rel)
	}
	n := 0
	for _, d := range docs {
		for _, b := range goBlocks(t, root, d) {
			n++
			if b.fn == "" {
				t.Errorf("%s:%d: a Go block without <!-- example: FILE FUNC --> before it", b.doc, b.line)
				continue
			}
			if want := exampleBody(t, filepath.Join(root, b.file), b.fn, b.afterSetup); b.code != want {
				t.Errorf("%s:%d differs from %s %s:\n--- document ---\n%s\n--- example ---\n%s", b.doc, b.line, b.file, b.fn, b.code, want)
			}
		}
	}
	if n == 0 {
		t.Error("no Go block found: is the README in place?")
	}
}
