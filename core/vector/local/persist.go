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
// Version 2 is a gob stream — per index a fileIndex with Parts set, then
// per resource a filePart, its Count fileRecords (int8 codes, in slot
// order) and its fileGraph — so that neither writing nor reading holds a
// second copy of the store in memory, and opening a large resource does not
// rebuild its graph. Version 3 is version 2 with the graph's bottom layer in
// Chunks fileL0 values after the fileGraph (similarities as int16, see
// simCode): one gob value of the whole layer made the encoder and the
// decoder buffer all of it (tens of MiB at 100k records), and with the
// graph's calibrated search width (a graph opened without one is calibrated
// by the first search or BuildGraphs, scanning exactly meanwhile). Version
// 4, written now, is version 3 with a graph over distinct vectors (nodes.go):
// N counts its nodes, Slots the slots it covers, and the grouping of slots
// into nodes is redone from the codes on opening. A graph of version 2 or 3
// is over slots: it is kept if its slots hold no duplicate vectors (then
// every slot is its own node, numbered alike), else the first search after
// Open rebuilds it. A graph is saved only when the resource has no dead
// slots (it would refer to them); otherwise the first search after Open
// rebuilds it.
const (
	fileMagicV1 = "agentmem-vectors\x01"
	fileMagicV2 = "agentmem-vectors\x02"
	fileMagicV3 = "agentmem-vectors\x03"
	fileMagic   = "agentmem-vectors\x04"
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
	Parts    int               // version 2: partitions following in the stream
}

// filePart starts one resource's records in a version 2 stream.
type filePart struct {
	Resource string
	Count    int
}

// fileGraph is a resource's HNSW graph (see graph); N 0 = none saved.
type fileGraph struct {
	N      int32     // nodes (up to version 3: slots, one node each)
	Slots  int32     // version 4: the slots [0, Slots) the graph covers
	L0     []int32   // version 2
	L0Sim  []float32 // version 2
	L0N    []byte    // version 2
	Chunks int       // version 3: fileL0 values following
	UpNode []int32   // nodes with upper levels, each with its levels in Up
	Up     [][]fileLinks
	Entry  int32
	Top    int
	Beam   int   // version 3: calibrated beam (graph.beam; 0: none, calibrated after Open)
	CalN   int32 // version 3: slots it was calibrated on
}

// fileL0 is the bottom layer of up to l0ChunkNodes nodes of a graph
// (version 3), in node order.
type fileL0 struct {
	IDs  []int32
	Sims []int16
	N    []byte
}

// l0ChunkNodes is the number of nodes per fileL0 (about 200 KiB encoded).
const l0ChunkNodes = 2048

type fileLinks struct {
	IDs  []int32
	Sims []float32
}

type fileRecord struct {
	ID, Text, Keywords, MessageID, ThreadID, ResourceID, Role string
	CreatedAt                                                 int64     // Unix nanoseconds, UTC
	Vector                                                    []float32 // version 1
	Codes                                                     []byte    // version 2: int8 codes (quant.go)
	Scale                                                     float32   // version 2
	Metadata                                                  []byte    // the message metadata as JSON; absent before it was stored
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
		return vector.Fail("local."+op, "save "+s.path, err)
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
			resources = append(resources, res)
		}
		fi.Parts = len(resources)
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

// encode writes the partition: its header, its live records in slot order,
// its graph.
func (p *partition) encode(enc *gob.Encoder) error {
	if err := enc.Encode(filePart{Resource: p.resource, Count: p.live()}); err != nil {
		return err
	}
	codes := make([]byte, p.vecs.dim)
	for s := range int32(len(p.slots)) {
		if p.thr[s] < 0 {
			continue
		}
		for i, c := range p.vecs.code(s) {
			codes[i] = byte(c)
		}
		r := p.record(s)
		if err := enc.Encode(fileRecord{ID: r.ID, Keywords: r.Keywords, MessageID: r.Meta.MessageID, ThreadID: r.Meta.ThreadID,
			Role: string(r.Meta.Role), CreatedAt: r.Meta.CreatedAt.UnixNano(), Codes: codes, Scale: p.vecs.scale[s],
			Metadata: p.metadataJSON(s)}); err != nil {
			return err
		}
	}
	var fg fileGraph
	g := p.graph
	if g == nil || p.dead > 0 {
		return enc.Encode(fg)
	}
	nodes := int(g.nodes())
	fg = fileGraph{N: int32(nodes), Slots: g.n, Chunks: (nodes + l0ChunkNodes - 1) / l0ChunkNodes, Entry: g.entry, Top: g.top,
		Beam: g.beam, CalN: g.calN}
	for node, lv := range g.up {
		fg.UpNode = append(fg.UpNode, node)
		fl := make([]fileLinks, len(lv))
		for i, lk := range lv {
			fl[i] = fileLinks{lk.ids, lk.sims}
		}
		fg.Up = append(fg.Up, fl)
	}
	if err := enc.Encode(fg); err != nil {
		return err
	}
	for lo := 0; lo < nodes; lo += l0ChunkNodes {
		hi := min(lo+l0ChunkNodes, nodes)
		fc := fileL0{IDs: g.l0[lo*hnswM0 : hi*hnswM0], Sims: g.l0sim[lo*hnswM0 : hi*hnswM0], N: g.l0n[lo:hi]}
		if err := enc.Encode(fc); err != nil {
			return err
		}
	}
	return nil
}

// decodeGraph reads a partition's graph (and, from version 3 on, its
// bottom-layer chunks) and installs it if it fits the partition's slots
// (else the next search rebuilds it).
func (p *partition) decodeGraph(dec *gob.Decoder) error {
	var fg fileGraph
	if err := dec.Decode(&fg); err != nil {
		return err
	}
	n := int(fg.N)
	l0 := fileL0{IDs: fg.L0, N: fg.L0N}
	var mem [2]*mapping
	if fg.Chunks > 0 && n > 0 && n <= len(p.slots) {
		l0.IDs, mem[0] = offHeap[int32](n * hnswM0)
		l0.Sims, mem[1] = offHeap[int16](n * hnswM0)
		l0.IDs, l0.Sims, l0.N = l0.IDs[:0], l0.Sims[:0], make([]byte, 0, n)
	}
	for range fg.Chunks {
		var fc fileL0
		if err := dec.Decode(&fc); err != nil {
			return err
		}
		l0.IDs, l0.Sims, l0.N = append(l0.IDs, fc.IDs...), append(l0.Sims, fc.Sims...), append(l0.N, fc.N...)
	}
	if fg.Chunks == 0 && len(fg.L0Sim) == len(fg.L0) { // version 2
		l0.Sims = make([]int16, len(fg.L0Sim))
		for i, sim := range fg.L0Sim {
			l0.Sims[i] = simCode(sim)
		}
	}
	p.restore(fg, l0, mem)
	return nil
}

// restore installs a saved graph if it fits the partition's slots (its
// nodes being those the slots' codes group into); mem owns l0's arrays when
// they are outside the heap.
func (p *partition) restore(fg fileGraph, l0 fileL0, mem [2]*mapping) {
	n := int(fg.N)
	slots := fg.Slots
	if slots == 0 { // up to version 3
		slots = fg.N
	}
	if n == 0 || int(slots) > len(p.slots) || len(l0.IDs) != n*hnswM0 || len(l0.Sims) != len(l0.IDs) || len(l0.N) != n ||
		len(fg.UpNode) != len(fg.Up) || fg.Entry < 0 || int(fg.Entry) >= n {
		return
	}
	for _, id := range l0.IDs {
		if id < 0 || int(id) >= n {
			return
		}
	}
	g := newGraph(&p.vecs)
	if g.group(slots); int(g.nodes()) != n {
		return
	}
	g.n, g.l0, g.l0sim, g.l0n, g.mem, g.entry, g.top = slots, l0.IDs, l0.Sims, l0.N, mem, fg.Entry, fg.Top
	if (fg.Beam == beamExact || fg.Beam >= hnswEfMin) && fg.CalN > 0 && fg.CalN <= slots {
		g.beam, g.calN = fg.Beam, fg.CalN
	}
	for i, node := range fg.UpNode {
		lv := make([]links, len(fg.Up[i]))
		for l, fl := range fg.Up[i] {
			for _, id := range fl.IDs {
				if id < 0 || int(id) >= n || len(fl.Sims) != len(fl.IDs) {
					return
				}
			}
			lv[l] = links{fl.IDs, fl.Sims}
		}
		g.up[node] = lv
	}
	if len(g.up[g.entry]) != g.top {
		return
	}
	p.graph = g
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
	case fileMagicV2, fileMagicV3, fileMagic:
		return s.decode(dec)
	}
	return errUnknownFile
}

var errUnknownFile = fmt.Errorf("not an agentmem vector file (or an unknown version)")

// decode reads a version 2, 3 or 4 stream.
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
		for range fi.Parts {
			if err := s.decodePart(dec, ix, fi); err != nil {
				return err
			}
		}
		s.indexes[fi.Name] = ix
	}
}

// decodePart reads one partition of a version 2 stream into ix.
func (s *Store) decodePart(dec *gob.Decoder, ix *index, fi fileIndex) error {
	var fp filePart
	if err := dec.Decode(&fp); err != nil {
		return err
	}
	p := ix.part(fp.Resource)
	p.version = fi.Versions[fp.Resource]
	codes := make([]int8, fi.Dim)
	for range fp.Count {
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
		fr.ResourceID = fp.Resource
		p.putCoded(fr.record(), codes, fr.Scale)
	}
	return p.decodeGraph(dec)
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
			Role: message.Role(fr.Role), CreatedAt: time.Unix(0, fr.CreatedAt).UTC(), Metadata: vector.DecodeMetadata(fr.Metadata)}}
}
