package inspector

import "testing"

func TestRenderMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# About the user\n- **Name**: Ada\n- likes `go`\n", "<h2>About the user</h2>\n<ul>\n<li><strong>Name</strong>: Ada</li>\n<li>likes <code>go</code></li>\n</ul>\n"},
		{"#### deep\n1. one\n\ntext", "<h5>deep</h5>\n<ul>\n<li>one</li>\n</ul>\n<p>text</p>\n"},
		{"<script>alert(1)</script> **<b>x</b>** `<i>`", "<p>&lt;script&gt;alert(1)&lt;/script&gt; <strong>&lt;b&gt;x&lt;/b&gt;</strong> <code>&lt;i&gt;</code></p>\n"},
		{"[link](javascript:alert(1)) ![img](x) **open", "<p>[link](javascript:alert(1)) ![img](x) **open</p>\n"},
		{"#no-space and `open", "<p>#no-space and `open</p>\n"},
		{"- \"quoted\" & 'single'", "<ul>\n<li>&#34;quoted&#34; &amp; &#39;single&#39;</li>\n</ul>\n"},
	} {
		if got := string(renderMarkdown(tc.in)); got != tc.want {
			t.Errorf("renderMarkdown(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
