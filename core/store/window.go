package store

import (
	"context"
	"slices"

	"github.com/agentmem/agentmem/core/message"
)

// WindowReader is the optional capability to read a page of a thread's
// token-budgeted history decoding only the messages that can be kept. A
// turn reads about a third more history than its budget keeps (the window
// must reach past the budget to know where it ends); with WindowReader the
// rows it will drop come back bare, undecoded. Without it, core.Memory
// reads the same pages with ListMessages.
type WindowReader interface {
	// ListWindow lists the messages of q like ListMessages (q has no
	// Include and no IncludeTotal), but decodes the content only of the
	// rows fit.Plan selects; the others are listed bare: every field but
	// Content set, Bare true for them.
	ListWindow(ctx context.Context, q MessageQuery, fit WindowFit) (WindowPage, error)
}

// WindowPage is one page of ListWindow.
type WindowPage struct {
	MessagePage
	// Bare marks, per message of Messages, those listed without content.
	Bare []bool
}

// WindowFit tells ListWindow which rows of a newest-first history page can
// be kept by a token budget or are linked to such rows, and must therefore
// be decoded. System rows are never kept.
type WindowFit struct {
	// Encoding is the token counter's encoding: a row whose stored count is
	// missing or of another encoding is decoded (to be recounted) and adds
	// nothing to the sums.
	Encoding string
	// Fits is the most history tokens a prompt can hold untrimmed; Keep is
	// the most tokens a trim keeps (Keep <= Fits). When the page's stored
	// counts (plus Used) exceed Fits, a trim is certain and rows are decoded
	// while their running sum stays within Keep; otherwise within Fits. A
	// row larger than that limit can never be kept and adds nothing.
	Fits, Keep int
	// Used is the tokens of the rows earlier pages listed.
	Used int
	// Links are tool-call ids already known (of decoded rows of earlier
	// pages, of the turn's input): a row holding one of them, or one of a
	// decoded row's, is decoded too, so that tool groups (message.ToolGroups)
	// come out as from fully decoded rows.
	Links []string
}

// WindowRow is what WindowFit.Plan needs of a stored row.
type WindowRow struct {
	Role     message.Role
	Tokens   int
	Encoding string
}

// Plan reports, per row of a newest-first page, whether its token count
// selects it for decoding (links aside).
func (f WindowFit) Plan(rows []WindowRow) []bool {
	counted := func(r WindowRow) bool {
		return r.Role != message.RoleSystem && r.Encoding == f.Encoding && r.Tokens > 0
	}
	total := f.Used
	for _, r := range rows {
		if counted(r) {
			total += r.Tokens
		}
	}
	limit := f.Fits
	if total > f.Fits {
		limit = f.Keep
	}
	decode := make([]bool, len(rows))
	sum := f.Used
	for i, r := range rows {
		switch {
		case r.Role == message.RoleSystem:
		case !counted(r):
			decode[i] = true
		case r.Tokens <= limit:
			sum += r.Tokens
			decode[i] = sum <= limit
		}
	}
	return decode
}

// DecodeWindow decodes the rows of a newest-first page that fit selects:
// msgs are scanned without content, contents their stored content (a
// driver that scans text as strings passes them so, and message.
// UnmarshalStored decodes them without copying), decode fills one
// message's Content. Rows fit.Plan selects are decoded first;
// then, until none is left, every other non-system row sharing a tool-call
// id with fit.Links or a decoded row. A bare row with tool parts gets a
// skeleton content (its tool-call ids only) so that tool groups come out as
// from decoded rows. It returns the Bare marks.
func DecodeWindow[C string | []byte](fit WindowFit, msgs []message.Message, contents []C, decode func(*message.Message, C) error) ([]bool, error) {
	rows := make([]WindowRow, len(msgs))
	for i := range msgs {
		rows[i] = WindowRow{Role: msgs[i].Role, Tokens: msgs[i].Tokens, Encoding: msgs[i].TokenEncoding}
	}
	want := fit.Plan(rows)
	bare := make([]bool, len(msgs))
	calls := make([][]string, len(msgs))
	links := map[string]bool{}
	for _, id := range fit.Links {
		links[id] = true
	}
	for i := range msgs {
		var err error
		if bare[i] = !want[i]; !bare[i] {
			err = decode(&msgs[i], contents[i])
			for _, id := range msgs[i].ToolCallIDs() {
				links[id] = true
			}
		} else if msgs[i].Role != message.RoleSystem {
			calls[i], err = message.StoredToolCallIDs(contents[i])
		}
		if err != nil {
			return nil, err
		}
	}
	for grew := true; grew; {
		grew = false
		for i := range msgs {
			if !bare[i] || !slices.ContainsFunc(calls[i], func(id string) bool { return links[id] }) {
				continue
			}
			if err := decode(&msgs[i], contents[i]); err != nil {
				return nil, err
			}
			for _, id := range calls[i] {
				links[id] = true
			}
			bare[i], grew = false, true
		}
	}
	for i := range msgs {
		if bare[i] {
			for _, id := range calls[i] {
				msgs[i].Content.Parts = append(msgs[i].Content.Parts, message.Part{Type: message.PartToolInvocation,
					ToolInvocation: &message.ToolInvocation{ToolCallID: id}})
			}
		}
	}
	return bare, nil
}
