package heapcap

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// limit returns the memory limit now in force.
func limit() int64 { return debug.SetMemoryLimit(-1) }

// collect runs collections until the cap's finalizer has had its turn.
func collect() {
	for range 3 {
		runtime.GC()
		runtime.Gosched()
	}
}

func TestCapFollowsLiveHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	was := limit()
	const floor = 8 << 20
	stop := Start(floor)

	collect()
	if got := limit(); got != floor {
		t.Fatalf("limit with a small live heap = %d, want the floor %d", got, floor)
	}

	// 64 MB live: the cap must rise above it, or the collector would run
	// without end.
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	collect()
	if got := limit(); got < 64<<20+32<<20 {
		t.Fatalf("limit with 64 MB live = %d MB, want at least 96 MB", got>>20)
	}
	runtime.KeepAlive(live)

	live = nil
	collect()
	if got := limit(); got != floor {
		t.Fatalf("limit once the heap is freed = %d MB, want the floor again", got>>20)
	}

	stop()
	collect()
	if got := limit(); got != was {
		t.Fatalf("limit after stop = %d, want %d as before Start", got, was)
	}
}

// The user's GOMEMLIMIT, or GOGC=off (never collect), wins.
func TestUserLimitWins(t *testing.T) {
	for _, env := range [][2]string{{"GOMEMLIMIT", "1GiB"}, {"GOGC", "off"}} {
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv(env[0], env[1])
		was := limit()
		stop := Start(8 << 20)
		collect()
		if got := limit(); got != was {
			t.Errorf("%s=%s: the limit changed to %d", env[0], env[1], got)
		}
		stop()
	}
}
