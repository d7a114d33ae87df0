package main

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Layout of the picture, in pixels.
const (
	rowHeight  = 20
	barHeight  = 12
	labelWidth = 330 // the span names, indented by depth
	indent     = 14
	barsWidth  = 600
	durWidth   = 80 // the duration after the longest bar
	top        = 70 // title, legend and time axis
	width      = labelWidth + barsWidth + durWidth
)

// kind is what a span stands for, which gives its colour.
type kind struct {
	name, color string
}

var (
	kindApp    = kind{"application", "#8c8c8c"}
	kindOp     = kind{"agentmem operation", "#3b6fd8"}
	kindStore  = kind{"store call", "#b9b2a6"}
	kindVector = kind{"embeddings, vector store", "#2a9d78"}
	kindModel  = kind{"model call", "#e08a1e"}
	kinds      = []kind{kindApp, kindOp, kindStore, kindVector, kindModel}
)

func kindOf(s sdktrace.ReadOnlySpan) kind {
	name := s.Name()
	switch {
	case s.InstrumentationScope().Name != "github.com/agentmem/agentmem":
		return kindApp
	case strings.HasPrefix(name, "agentmem."):
		return kindOp
	case strings.HasPrefix(name, "chat "):
		return kindModel
	case name == "embeddings" || strings.HasPrefix(name, "vector."):
		return kindVector
	}
	return kindStore
}

// row is one span of the picture, in drawing order.
type row struct {
	span  sdktrace.ReadOnlySpan
	depth int
}

// rows orders spans depth first, children and roots by start time.
func rows(spans []sdktrace.ReadOnlySpan) []row {
	children := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	present := map[trace.SpanID]bool{}
	for _, s := range spans {
		present[s.SpanContext().SpanID()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if p := s.Parent(); p.IsValid() && present[p.SpanID()] {
			children[p.SpanID()] = append(children[p.SpanID()], s)
		} else {
			roots = append(roots, s)
		}
	}
	byStart := func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) }
	var out []row
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		out = append(out, row{s, depth})
		kids := children[s.SpanContext().SpanID()]
		slices.SortFunc(kids, byStart)
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	slices.SortFunc(roots, byStart)
	for _, r := range roots {
		walk(r, 0)
	}
	return out
}

// waterfall draws spans as an SVG waterfall: one row per span, a bar from
// its start to its end on a common time axis, and a dashed line from each
// link to the root of the trace it starts.
func waterfall(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	if len(spans) == 0 {
		return nil, errors.New("no spans")
	}
	rs := rows(spans)
	t0, t1 := rs[0].span.StartTime(), rs[0].span.EndTime()
	for _, r := range rs {
		t0 = minTime(t0, r.span.StartTime())
		t1 = maxTime(t1, r.span.EndTime())
	}
	total := t1.Sub(t0)
	x := func(t time.Time) float64 {
		return labelWidth + float64(t.Sub(t0))/float64(total)*barsWidth
	}
	y := func(i int) int { return top + i*rowHeight }
	height := y(len(rs)) + 30

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	b.WriteString(`<text x="8" y="18" font-size="13" font-weight="bold">One agent turn with memory (recall, the recall tool, a Step, a Commit; background observation)</text>` + "\n")
	lx := 8
	for _, k := range kinds {
		fmt.Fprintf(&b, `<rect x="%d" y="30" width="10" height="10" fill="%s"/><text x="%d" y="39">%s</text>`+"\n", lx, k.color, lx+14, k.name)
		lx += 24 + 7*len(k.name)
	}

	// Time axis: about six ticks of a round step.
	step := niceStep(total / 6)
	for t := time.Duration(0); t <= total; t += step {
		tx := labelWidth + float64(t)/float64(total)*barsWidth
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e6e6e6"/>`+"\n", tx, top-8, tx, y(len(rs)))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#666">%s</text>`+"\n", tx, top-12, duration(t))
	}

	at := map[trace.SpanID]int{}
	for i, r := range rs {
		at[r.span.SpanContext().SpanID()] = i
		s, k := r.span, kindOf(r.span)
		yy := y(i)
		if i%2 == 1 {
			fmt.Fprintf(&b, `<rect x="0" y="%d" width="%d" height="%d" fill="#f7f7f7"/>`+"\n", yy, width, rowHeight)
		}
		label := s.Name()
		if !s.Parent().IsValid() && len(s.Links()) > 0 {
			label += "  (new trace, linked)"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", 8+r.depth*indent, yy+14, html.EscapeString(label))
		x0, x1 := x(s.StartTime()), x(s.EndTime())
		w := math.Max(x1-x0, 1.5)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" rx="2" fill="%s"><title>%s</title></rect>`+"\n",
			x0, yy+(rowHeight-barHeight)/2, w, barHeight, k.color, html.EscapeString(s.Name()+" "+duration(s.EndTime().Sub(s.StartTime()))))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#444">%s</text>`+"\n", x0+w+4, yy+14, duration(s.EndTime().Sub(s.StartTime())))
	}
	for i, r := range rs {
		for _, l := range r.span.Links() {
			from, ok := at[l.SpanContext.SpanID()]
			if !ok {
				continue
			}
			src := rs[from].span
			fmt.Fprintf(&b, `<path d="M %.1f %d V %d H %.1f" fill="none" stroke="#555" stroke-dasharray="3 3"/>`+"\n",
				x(src.StartTime()), y(from)+rowHeight/2+barHeight/2, y(i)+rowHeight/2, x(r.span.StartTime()))
		}
	}
	fmt.Fprintf(&b, `<text x="8" y="%d" fill="#666">Recorded by go run ./internal/cmd/tracepicture (SQLite, local vector store, the SDK's in-memory span recorder; the observer answers at once).</text>`+"\n", height-10)
	b.WriteString("</svg>\n")
	return b.Bytes(), nil
}

// niceStep rounds d up to 1, 2 or 5 times a power of ten.
func niceStep(d time.Duration) time.Duration {
	if d <= 0 {
		return time.Microsecond
	}
	p := time.Duration(math.Pow(10, math.Floor(math.Log10(float64(d)))))
	for _, m := range []time.Duration{1, 2, 5, 10} {
		if m*p >= d {
			return m * p
		}
	}
	return 10 * p
}

// duration formats d in µs below a millisecond, else in ms.
func duration(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
