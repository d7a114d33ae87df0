package local

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"
)

// fileMagic starts every store file; the trailing byte is the format version.
const fileMagic = "agentmem-vectors\x01"

// fileIndex is one index on file. Fields added later decode as zero values
// from older files (gob matches by name): an older file's resources have
// version "", which a Memory of the current version reports as a mismatch.
type fileIndex struct {
	Name     string
	Dim      int
	Version  string
	Versions map[string]string // resource -> version of its records
	Records  []fileRecord
}

type fileRecord struct {
	ID, Text, Keywords, MessageID, ThreadID, ResourceID, Role string
	CreatedAt                                                 int64 // Unix nanoseconds, UTC
	Vector                                                    []float32
}

// saveLocked marks the state changed and writes it unless the store is buffered.
func (s *Store) saveLocked(op string) error {
	s.dirty = true
	if s.lazy {
		return nil
	}
	return s.flushLocked(op)
}

// flushLocked writes the file atomically if there are unsaved changes.
func (s *Store) flushLocked(op string) error {
	if !s.dirty {
		return nil
	}
	if s.path == "" {
		s.dirty = false
		return nil
	}
	if err := s.writeFile(); err != nil {
		return vecErr(op, "save "+s.path, err)
	}
	s.dirty = false
	return nil
}

func (s *Store) writeFile() (err error) {
	dir := filepath.Dir(s.path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(s.path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<16)
	if _, err = io.WriteString(w, fileMagic); err != nil {
		return err
	}
	if err = gob.NewEncoder(w).Encode(s.snapshot()); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), s.path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil
}

func (s *Store) snapshot() []fileIndex {
	out := make([]fileIndex, 0, len(s.indexes))
	for name, ix := range s.indexes {
		fi := fileIndex{Name: name, Dim: ix.dim, Version: ix.version, Versions: map[string]string{}}
		for res, p := range ix.parts {
			fi.Versions[res] = p.version
			for _, e := range p.recs {
				r := e.rec
				fi.Records = append(fi.Records, fileRecord{
					ID: r.ID, Text: r.Text, Keywords: r.Keywords, MessageID: r.Meta.MessageID, ThreadID: r.Meta.ThreadID,
					ResourceID: r.Meta.ResourceID, Role: string(r.Meta.Role),
					CreatedAt: r.Meta.CreatedAt.UnixNano(), Vector: r.Vector,
				})
			}
		}
		sort.Slice(fi.Records, func(i, j int) bool { return fi.Records[i].ID < fi.Records[j].ID })
		out = append(out, fi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Store) load() error {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	magic := make([]byte, len(fileMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != fileMagic {
		return fmt.Errorf("not an agentmem vector file (or an unknown version)")
	}
	var idx []fileIndex
	if err := gob.NewDecoder(r).Decode(&idx); err != nil {
		return err
	}
	for _, fi := range idx {
		ix := newIndex(fi.Dim)
		ix.version = fi.Version
		for _, fr := range fi.Records {
			p := ix.part(fr.ResourceID)
			p.version = fi.Versions[fr.ResourceID]
			p.put(newEntry(vector.Record{
				ID: fr.ID, Text: fr.Text, Keywords: fr.Keywords, Vector: fr.Vector,
				Meta: vector.Meta{MessageID: fr.MessageID, ThreadID: fr.ThreadID, ResourceID: fr.ResourceID,
					Role: message.Role(fr.Role), CreatedAt: time.Unix(0, fr.CreatedAt).UTC()},
			}))
		}
		s.indexes[fi.Name] = ix
	}
	return nil
}
