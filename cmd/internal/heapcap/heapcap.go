// Package heapcap bounds the Go heap of a dossier process that indexes.
//
// An index run's live heap is small next to what the collector lets the
// heap grow to at GOGC 100 (twice the live heap after each cycle): on Go's
// own tree the workers keep about 100 MB live and the heap climbs to 240,
// and the peak is what the user sees. A soft memory limit makes the
// collector work only near a cap instead, but a fixed cap under a large
// repository's live heap would have it collect without end. So the cap
// follows the heap: after every collection it is the larger of a floor
// and half again the live heap.
package heapcap

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Floor is the cap while the live heap is small: Go's tree indexes
// within it.
const Floor = 256 << 20

// liveMetric is the heap marked live by the last collection.
const liveMetric = "/gc/heap/live:bytes"

// Start caps the heap at floor bytes, or half again the live heap when
// that is more, until stop is called; it does nothing (and stop nothing)
// when GOMEMLIMIT or GOGC=off is set, which is the user's own choice.
func Start(floor int64) (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") == "off" {
		return func() {}
	}
	c := &governor{floor: floor, was: debug.SetMemoryLimit(-1)}
	c.adjust()
	c.arm()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.stopped.Swap(true) {
			debug.SetMemoryLimit(c.was)
		}
	}
}

type governor struct {
	floor int64
	was   int64 // the limit before Start
	// mu orders adjust and stop: a limit adjust set after stop restored
	// the old one would stay.
	mu      sync.Mutex
	stopped atomic.Bool
	sample  [1]metrics.Sample
}

// adjust sets the limit from the live heap the last collection marked.
func (c *governor) adjust() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sample[0].Name = liveMetric
	metrics.Read(c.sample[:])
	limit := c.floor
	if v := c.sample[0].Value; v.Kind() == metrics.KindUint64 {
		live := int64(v.Uint64())
		limit = max(limit, live+live/2)
	}
	if !c.stopped.Load() {
		debug.SetMemoryLimit(limit)
	}
}

// sentinel is garbage from birth: its finalizer runs after the next
// collection, adjusts the cap, and arms a new one.
type sentinel struct{ c *governor }

func (c *governor) arm() {
	runtime.SetFinalizer(&sentinel{c}, func(s *sentinel) {
		if s.c.stopped.Load() {
			return
		}
		s.c.adjust()
		s.c.arm()
	})
}
