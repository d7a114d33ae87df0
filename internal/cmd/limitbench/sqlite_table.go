package main

import (
	"context"
	"database/sql"
	"os"
	"strings"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/tokenizer"
)

// tableRows is how many rows one of agentmem's insert statements writes
// (core/store/sqlite's bulkRows).
const tableRows = 500

// tableEngine writes into the messages table core/store/sqlite creates, with
// its statement: the columns agentmem keeps per message (resource, type,
// token encoding besides the minimal ones), its constraints (the thread's
// foreign key, AUTOINCREMENT, the unique id) and its multi-row INSERT …
// SELECT … ON CONFLICT DO NOTHING of 500 rows. The contents are encoded as
// agentmem stores them (message.MarshalStored) before the timed save. What
// it adds to the minimal table's time is the price of that schema; what
// agentmem adds to it is the library's own work.
type tableEngine struct {
	*sqliteEngine
	insert   *sql.Stmt
	contents map[string]string
}

func openAgentmemTable(ctx context.Context, path string) (*tableEngine, error) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
	st, err := sqlite.Open(ctx, path) // creates agentmem's schema
	if err != nil {
		return nil, err
	}
	if _, err := st.CreateThread(ctx, store.Thread{ID: threadID, ResourceID: resourceID}); err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	e := &tableEngine{sqliteEngine: &sqliteEngine{db: db}, contents: map[string]string{}}
	if e.insert, err = db.PrepareContext(ctx, tableInsert(tableRows)); err != nil {
		return nil, err
	}
	if e.newest, err = db.PrepareContext(ctx, `SELECT seq, id, role, content, created_at, tokens FROM messages
		WHERE thread_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?`); err != nil {
		return nil, err
	}
	return e, nil
}

// tableInsert is core/store/sqlite's insert of n new rows of one thread,
// resource, type and token encoding.
func tableInsert(n int) string {
	return `INSERT INTO messages (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
		SELECT column1, ?1, ?2, column2, ?3, column3, column4, column5, ?4
		FROM (VALUES ` + strings.TrimSuffix(strings.Repeat(`(?, ?, ?, ?, ?), `, n), `, `) + `) WHERE true
		ON CONFLICT (id) DO NOTHING`
}

// encode stores each row's content as agentmem does, untimed.
func (e *tableEngine) encode(rs []row) error {
	for _, r := range rs {
		b, err := message.MarshalStored(message.NewMessage(message.Role(r.role), r.content).Content)
		if err != nil {
			return err
		}
		e.contents[r.id] = string(b)
	}
	return nil
}

func (e *tableEngine) save(ctx context.Context, batch []row) error {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	args := make([]any, 0, 4+5*tableRows)
	for lo := 0; lo < len(batch); lo += tableRows {
		part := batch[lo:min(len(batch), lo+tableRows)]
		args = append(args[:0], threadID, resourceID, "", tokenizer.Default().Encoding())
		for _, r := range part {
			args = append(args, r.id, r.role, e.contents[r.id], r.createdAt.UnixMicro(), r.tokens)
		}
		stmt := tx.StmtContext(ctx, e.insert)
		if len(part) != tableRows {
			stmt, err = tx.PrepareContext(ctx, tableInsert(len(part)))
			if err != nil {
				return err
			}
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}
