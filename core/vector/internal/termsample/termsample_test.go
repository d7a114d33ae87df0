package termsample

import (
	"errors"
	"testing"
	"time"
)

func TestCacheReadsAgainWhenStale(t *testing.T) {
	c := &Cache{TTL: time.Hour, Max: 2}
	reads := 0
	read := func() (*Sample, error) {
		reads++
		return &Sample{DF: map[string]int{"a": reads}, N: 100}, nil
	}
	get := func(key string) int {
		t.Helper()
		s, err := c.Get(key, read)
		if err != nil {
			t.Fatal(err)
		}
		return s.DF["a"]
	}
	if get("r") != 1 || get("r") != 1 {
		t.Fatal("a fresh sample was read again")
	}
	c.Written("r", 9)
	if get("r") != 1 {
		t.Fatal("9 of 100 records written: the sample is still fresh")
	}
	c.Written("r", 1)
	if get("r") != 2 {
		t.Fatal("a tenth of the sample written: it must be read again")
	}
	c.Forget("r")
	if get("r") != 3 {
		t.Fatal("a forgotten sample must be read again")
	}
	get("s")
	get("t") // a full cache is emptied
	if get("r") != 6 {
		t.Fatalf("the cache keeps more than Max samples (reads %d)", reads)
	}
	c.TTL = 0
	time.Sleep(time.Millisecond)
	if get("r") != 7 {
		t.Fatal("a sample older than TTL must be read again")
	}
}

func TestCacheKeepsNothingOnAFailedRead(t *testing.T) {
	c := &Cache{TTL: time.Hour, Max: 10}
	boom := errors.New("boom")
	if _, err := c.Get("r", func() (*Sample, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	s, err := c.Get("r", func() (*Sample, error) { return &Sample{N: 1}, nil })
	if err != nil || s.N != 1 {
		t.Fatalf("after a failed read: %+v, %v", s, err)
	}
}
