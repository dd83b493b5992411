package tasks

import (
	"slices"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// MapFile is the map from the plan's tracked lines to the trackers'
// items, under .ralph/ (a loop-owned file: ralphdir.LoopOwned).
const MapFile = ralphdir.TaskMap

// record is one tracked line's item, as the map keeps it.
type record struct {
	Key     string `json:"key"`     // as the plan shows it: "bd-a1b2", "#12"
	Tracker string `json:"tracker"` // beads, github
	ID      string `json:"id"`      // the tracker's own: "bd-a1b2", "12"
	Title   string `json:"title"`
	URL     string `json:"url,omitempty"`
	// Claimed: this project's loop holds the item's claim (TASK_WRITEBACK),
	// as Actor when that was given (a swarm worker's beads actor) and Worker
	// (a swarm worker's name, for GitHub's claims among workers).
	Claimed bool   `json:"claimed,omitempty"`
	Actor   string `json:"actor,omitempty"`
	Worker  string `json:"worker,omitempty"`
	// Done: this loop wrote the item back as done; Closed: it was found
	// closed in the tracker.
	Done   bool `json:"done,omitempty"`
	Closed bool `json:"closed,omitempty"`
}

// finished reports whether the item needs no more work.
func (r *record) finished() bool { return r.Done || r.Closed }

// mapFile is the file's content.
type mapFile struct {
	Version int      `json:"version"`
	Items   []record `json:"items"`
}

// trackMap is the map in memory, in the order it was filled.
type trackMap struct {
	items []*record
}

// loadMap reads the map; a missing one is empty, a damaged one is moved
// aside by ralphdir (with a warning) and read as empty.
func loadMap(d *ralphdir.Dir) (*trackMap, error) {
	var f mapFile
	if _, err := d.ReadJSON(MapFile, &f); err != nil {
		return &trackMap{}, err
	}
	m := &trackMap{}
	for i := range f.Items {
		r := f.Items[i]
		if r.Key != "" && m.get(r.Key) == nil {
			m.items = append(m.items, &r)
		}
	}
	return m, nil
}

// save writes the map atomically.
func (m *trackMap) save(d *ralphdir.Dir) error {
	f := mapFile{Version: 1, Items: []record{}}
	for _, r := range m.items {
		f.Items = append(f.Items, *r)
	}
	return d.WriteJSON(MapFile, f)
}

func (m *trackMap) get(key string) *record {
	for _, r := range m.items {
		if r.Key == key {
			return r
		}
	}
	return nil
}

// put returns key's record, added when there is none.
func (m *trackMap) put(key, tracker string) *record {
	if r := m.get(key); r != nil {
		return r
	}
	r := &record{Key: key, Tracker: tracker}
	m.items = append(m.items, r)
	return r
}

// drop forgets key's record.
func (m *trackMap) drop(key string) {
	m.items = slices.DeleteFunc(m.items, func(r *record) bool { return r.Key == key })
}

// of is every record of tracker.
func (m *trackMap) of(tracker string) []*record {
	var out []*record
	for _, r := range m.items {
		if r.Tracker == tracker {
			out = append(out, r)
		}
	}
	return out
}
