package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "agentmem-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "memory.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()

	th, err := db.SaveThread(ctx, store.Thread{ID: "thread-1", ResourceID: "user-1", Title: "hello"})
	if err != nil {
		panic(err)
	}
	fmt.Println(th.ID, th.ResourceID, th.Title)
	// Output: thread-1 user-1 hello
}
