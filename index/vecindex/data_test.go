package vecindex

import (
	"cmp"
	"math"
	"math/rand"
	"slices"
	"sync"
)

// mixture draws unit vectors shaped like sentence embeddings: clusters
// (topics) of varying spread around random centres, all leaning towards
// one shared direction, as real models' vectors do (unrelated texts still
// score about 0.2). Uniform noise would make every neighbour equally far
// and say nothing about a real index.
type mixture struct {
	r       *rand.Rand
	dims    int
	centres [][]float64
	spread  []float64 // per cluster: noise norm relative to the centre's
}

func newMixture(seed int64, dims, clusters int) *mixture {
	r := rand.New(rand.NewSource(seed))
	m := &mixture{r: r, dims: dims}
	shared := m.gaussian(1)
	unit(shared)
	for range clusters {
		c := m.gaussian(1)
		unit(c)
		for i := range c {
			c[i] += 0.5 * shared[i]
		}
		unit(c)
		m.centres = append(m.centres, c)
		// 0.5 puts a cluster's members at cosine 0.8 with each other,
		// 1.5 at 0.3: tight and loose topics.
		m.spread = append(m.spread, 0.5+r.Float64())
	}
	return m
}

func (m *mixture) gaussian(norm float64) []float64 {
	v := make([]float64, m.dims)
	sd := norm / math.Sqrt(float64(m.dims))
	for i := range v {
		v[i] = m.r.NormFloat64() * sd
	}
	return v
}

// draw returns one point: a random cluster's centre plus its noise,
// normalized.
func (m *mixture) draw() []float32 {
	c := m.r.Intn(len(m.centres))
	v := m.gaussian(m.spread[c])
	for i := range v {
		v[i] += m.centres[c][i]
	}
	unit(v)
	out := make([]float32, m.dims)
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func (m *mixture) drawN(n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = m.draw()
	}
	return out
}

func unit(v []float64) {
	var s float64
	for _, x := range v {
		s += x * x
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] /= s
	}
}

// dataset is n data vectors and nq queries from the same mixture.
type dataset struct {
	data, queries [][]float32
}

func newDataset(seed int64, n, nq, dims int) dataset {
	m := newMixture(seed, dims, max(10, n/200))
	return dataset{data: m.drawN(n), queries: m.drawN(nq)}
}

// exactTopK is the brute-force answer in float64: the IDs of the k
// vectors with the highest cosine, best first.
func exactTopK(data [][]float32, q []float32, k int) []int {
	type scored struct {
		id int
		s  float64
	}
	all := make([]scored, len(data))
	for i, v := range data {
		var s float64
		for j, x := range v {
			s += float64(x) * float64(q[j])
		}
		all[i] = scored{i, s}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if c := cmp.Compare(b.s, a.s); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	ids := make([]int, min(k, len(all)))
	for i := range ids {
		ids[i] = all[i].id
	}
	return ids
}

// groundTruth computes exactTopK for every query, spread over the cores.
func groundTruth(ds dataset, k int) [][]int {
	out := make([][]int, len(ds.queries))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				out[i] = exactTopK(ds.data, ds.queries[i], k)
			}
		})
	}
	for i := range ds.queries {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// recall is the share of the exact top-k found in got, averaged over
// queries.
func recall(exact, got [][]int) float64 {
	var found, total int
	for i, want := range exact {
		for _, id := range want {
			if slices.Contains(got[i], id) {
				found++
			}
		}
		total += len(want)
	}
	return float64(found) / float64(total)
}

func hitIDs(hits []Hit) []int {
	ids := make([]int, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}
