// Package legacy backs the mirrors of langchaingo's persistent histories
// (langchaingo/sqlite3, langchaingo/alloydb, langchaingo/cloudsql): a
// langchaingo ChatMessageHistory stored in a core.Memory that, on first use
// of a session, imports that session from the table upstream's history wrote
// (langchaingo_messages and the like), so existing conversations carry over.
package legacy

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/core/memerr"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/agentmem/agentmem/core"
	lcmem "github.com/agentmem/agentmem/langchaingo"
)

// Row is one message of an upstream history table.
type Row struct {
	Key     string    // the row's primary key, unique in the table
	Type    string    // llms.ChatMessageType: "ai", "human", "system", …
	Content string    // the message text
	Created time.Time // the row's timestamp; zero when the table has none
}

// Table is an upstream history table.
type Table interface {
	// Name identifies the table in imported message ids and thread metadata.
	Name() string
	// Rows returns the rows of a session, oldest first; none when the table
	// does not exist.
	Rows(ctx context.Context, session string) ([]Row, error)
	// Delete deletes the rows of a session; nothing when the table does not
	// exist.
	Delete(ctx context.Context, session string) error
}

// MetadataImportedFrom is the thread metadata key naming the table a
// session was imported from.
const MetadataImportedFrom = "langchaingoImportedFrom"

// History is a session of a core.Memory seen as a langchaingo history.
type History struct {
	mem     *core.Memory
	chat    *lcmem.ChatMessageHistory
	table   Table
	session string

	mu       sync.Mutex
	prepared bool
}

// New returns the history of session in mem, importing from table.
func New(mem *core.Memory, table Table, session string) *History {
	return &History{mem: mem, table: table, session: session,
		chat: lcmem.NewChatMessageHistory(lcmem.WithHistoryMemory(mem), lcmem.WithHistoryThread(session, ""))}
}

// Chat returns the history, after importing the session on first use.
func (h *History) Chat(ctx context.Context) (*lcmem.ChatMessageHistory, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.prepared {
		return h.chat, nil
	}
	if err := h.importSession(ctx); err != nil {
		return nil, err
	}
	h.prepared = true
	return h.chat, nil
}

// Clear deletes the session from the memory and from the upstream table, as
// upstream's Clear deletes its rows (so they are not imported again).
func (h *History) Clear(ctx context.Context) error {
	chat, err := h.Chat(ctx)
	if err != nil {
		return err
	}
	if err := chat.Clear(ctx); err != nil {
		return err
	}
	return h.table.Delete(ctx, h.session)
}

// importSession copies the session's upstream rows into the memory when the
// memory has no thread for it yet. The rows keep their order and, where the
// table has them, their times; ids derived from the table and row make a
// concurrent import by another process write the same messages, not
// duplicates. Rows of types upstream's readers drop or reject (tool,
// function, generic: stored without their ids or names) are left out, so
// the imported conversation is the one upstream showed.
func (h *History) importSession(ctx context.Context) error {
	_, err := h.mem.GetThread(ctx, h.session, lcmem.DefaultResourceID)
	if err == nil || !errors.Is(err, memerr.ErrThreadNotFound) {
		return err
	}
	rows, err := h.table.Rows(ctx, h.session)
	if err != nil {
		return fmt.Errorf("langchaingo memory: reading session %q of upstream table %s: %w", h.session, h.table.Name(), err)
	}
	var chat []llms.ChatMessage
	var kept []Row
	for _, r := range rows {
		switch llms.ChatMessageType(r.Type) {
		case llms.ChatMessageTypeAI:
			chat = append(chat, llms.AIChatMessage{Content: r.Content})
		case llms.ChatMessageTypeHuman:
			chat = append(chat, llms.HumanChatMessage{Content: r.Content})
		case llms.ChatMessageTypeSystem:
			chat = append(chat, llms.SystemChatMessage{Content: r.Content})
		default:
			continue
		}
		kept = append(kept, r)
	}
	if len(chat) == 0 {
		return nil
	}
	msgs, err := lcmem.MessagesToCore(chat)
	if err != nil {
		return err
	}
	base := time.Now().Add(-time.Duration(len(msgs)) * time.Microsecond)
	for i := range msgs {
		m := &msgs[i]
		m.ID = fmt.Sprintf("%s:%s:%s", h.table.Name(), h.session, kept[i].Key)
		m.ThreadID, m.ResourceID = h.session, lcmem.DefaultResourceID
		// Rows of one second share a timestamp: offsets keep their order.
		m.CreatedAt = base.Add(time.Duration(i) * time.Microsecond)
		if !kept[i].Created.IsZero() {
			m.CreatedAt = kept[i].Created.Add(time.Duration(i) * time.Microsecond)
		}
	}
	if _, err := h.mem.CreateThread(ctx, core.ThreadInput{ID: h.session, ResourceID: lcmem.DefaultResourceID,
		Metadata: map[string]any{MetadataImportedFrom: h.table.Name()}}); err != nil {
		return err
	}
	_, err = h.mem.SaveMessages(ctx, msgs, nil)
	return err
}
