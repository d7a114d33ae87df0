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

// File formats: the magic's trailing byte is the format version. Version 1
// is one gob value, []fileIndex with the records inside (float32 vectors).
// Version 2, written now, is a gob stream — per index a fileIndex with
// Count set, then Count fileRecords with int8 codes — so that neither
// writing nor reading holds a second copy of the store in memory.
const (
	fileMagicV1 = "agentmem-vectors\x01"
	fileMagic   = "agentmem-vectors\x02"
)

// fileIndex is one index on file. Fields added later decode as zero values
// from older files (gob matches by name): an older file's resources have
// version "", which a Memory of the current version reports as a mismatch.
type fileIndex struct {
	Name     string
	Dim      int
	Version  string
	Versions map[string]string // resource -> version of its records
	Records  []fileRecord      // version 1
	Count    int               // version 2: records following in the stream
}

type fileRecord struct {
	ID, Text, Keywords, MessageID, ThreadID, ResourceID, Role string
	CreatedAt                                                 int64     // Unix nanoseconds, UTC
	Vector                                                    []float32 // version 1
	Codes                                                     []byte    // version 2: int8 codes (quant.go)
	Scale                                                     float32   // version 2
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
	if err = s.encode(gob.NewEncoder(w)); err != nil {
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

// encode writes the indexes in name order, each resource's records in id
// order (the file of a given state is always the same).
func (s *Store) encode(enc *gob.Encoder) error {
	names := make([]string, 0, len(s.indexes))
	for name := range s.indexes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ix := s.indexes[name]
		fi := fileIndex{Name: name, Dim: ix.dim, Version: ix.version, Versions: map[string]string{}}
		resources := make([]string, 0, len(ix.parts))
		for res, p := range ix.parts {
			fi.Versions[res] = p.version
			fi.Count += p.live()
			resources = append(resources, res)
		}
		sort.Strings(resources)
		if err := enc.Encode(fi); err != nil {
			return err
		}
		for _, res := range resources {
			if err := ix.parts[res].encode(enc); err != nil {
				return err
			}
		}
	}
	return nil
}

// encode writes the partition's records in id order.
func (p *partition) encode(enc *gob.Encoder) error {
	ids := make([]string, 0, p.live())
	for id := range p.ids {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	codes := make([]byte, p.vecs.dim)
	for _, id := range ids {
		s := p.ids[id]
		for i, c := range p.vecs.code(s) {
			codes[i] = byte(c)
		}
		r := p.record(s)
		if err := enc.Encode(fileRecord{ID: r.ID, Keywords: r.Keywords, MessageID: r.Meta.MessageID, ThreadID: r.Meta.ThreadID,
			ResourceID: r.Meta.ResourceID, Role: string(r.Meta.Role), CreatedAt: r.Meta.CreatedAt.UnixNano(),
			Codes: codes, Scale: p.vecs.scale[s]}); err != nil {
			return err
		}
	}
	return nil
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
	if _, err := io.ReadFull(r, magic); err != nil {
		return errUnknownFile
	}
	dec := gob.NewDecoder(r)
	switch string(magic) {
	case fileMagicV1:
		return s.decodeV1(dec)
	case fileMagic:
		return s.decode(dec)
	}
	return errUnknownFile
}

var errUnknownFile = fmt.Errorf("not an agentmem vector file (or an unknown version)")

// decode reads a version 2 stream.
func (s *Store) decode(dec *gob.Decoder) error {
	for {
		var fi fileIndex
		if err := dec.Decode(&fi); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		ix := newIndex(fi.Dim, s.approx)
		ix.version = fi.Version
		codes := make([]int8, fi.Dim)
		for range fi.Count {
			var fr fileRecord
			if err := dec.Decode(&fr); err != nil {
				return err
			}
			if len(fr.Codes) != fi.Dim {
				return fmt.Errorf("record %q has %d dimensions in an index of %d", fr.ID, len(fr.Codes), fi.Dim)
			}
			for i, c := range fr.Codes {
				codes[i] = int8(c)
			}
			p := ix.part(fr.ResourceID)
			p.version = fi.Versions[fr.ResourceID]
			p.putCoded(fr.record(), codes, fr.Scale)
		}
		s.indexes[fi.Name] = ix
	}
}

// decodeV1 reads a version 1 file.
func (s *Store) decodeV1(dec *gob.Decoder) error {
	var idx []fileIndex
	if err := dec.Decode(&idx); err != nil {
		return err
	}
	for _, fi := range idx {
		ix := newIndex(fi.Dim, s.approx)
		ix.version = fi.Version
		for _, fr := range fi.Records {
			p := ix.part(fr.ResourceID)
			p.version = fi.Versions[fr.ResourceID]
			r := fr.record()
			r.Vector = fr.Vector
			p.put(r)
		}
		s.indexes[fi.Name] = ix
	}
	return nil
}

func (fr *fileRecord) record() vector.Record {
	return vector.Record{ID: fr.ID, Text: fr.Text, Keywords: fr.Keywords,
		Meta: vector.Meta{MessageID: fr.MessageID, ThreadID: fr.ThreadID, ResourceID: fr.ResourceID,
			Role: message.Role(fr.Role), CreatedAt: time.Unix(0, fr.CreatedAt).UTC()}}
}
