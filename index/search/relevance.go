package search

import "math"

// Scores are absolute: 1 is a strong match and a query nothing in the index
// answers scores near 0, so a threshold (Query.MinScore, seed 002's
// min_score) means the same for every query and "no results" is an answer.
// Each retriever's score is calibrated on the index's own statistics:
//
//   - text: BM25 against the most the query's terms could score given their
//     IDFs, times the share of the query's IDF mass the best chunk holds (a
//     query whose best match has one of its three rare words is weakly
//     answered however often that chunk says it), see calibrateText;
//   - vector: the best cosine against the query's own cosines with every
//     chunk of the index, nearly all unrelated to it, see cosineNull;
//   - symbol: exact names 1, case-folded 0.9, prefixes and fuzzy matches
//     less (see symbols.go); regex: every match 1.
//
// Within a retriever, candidates keep their proportion to its best, so the
// order is the retriever's own. Hybrid mode ranks by the fusion measured
// best and gives that fusion's level the calibrated evidence's (see fuse);
// the reranking priors multiply, and the score shown is bounded (see
// bounded).

// Text calibration. A term's BM25 share tends to idf × (k1+1) as its count
// grows; refShare is the fraction of that a chunk reaches with the term in
// its name (a count of weightSymbol at the average length), which scores 1.
// coverPow is how hard a chunk is marked down for the query mass it lacks.
const (
	refShare = float64(weightSymbol) / (weightSymbol + bm25K1)
	coverPow = 1.0
)

// calibrateText turns the BM25 scores of hits (sorted, best first) into
// absolute text scores: BM25 against the query's reference (see refShare),
// times the share of the query's IDF mass the best chunk holds, to the
// power coverPow. The share is the query's, not each chunk's: a chunk
// lacking some of a long query's words is still as good an answer as BM25
// says relative to the best (a per-chunk share cost a fifth of the text
// MRR on the Go set), but when even the best lacks most of the query,
// nothing answers it well.
func calibrateText(hits []hit, mass float64) {
	if len(hits) == 0 || mass <= 0 {
		return
	}
	scale := math.Pow(min(hits[0].cover/mass, 1), coverPow) / (mass * (bm25K1 + 1) * refShare)
	for i := range hits {
		hits[i].score *= scale
	}
}

// Vector calibration. Nearly every chunk of an index is unrelated to a
// query, so the query's cosines with all of them are the null distribution
// its matches must stand out of: the best cosine scores 0 up to nullZ
// standard deviations above their mean and rises by 1 from there to
// strongZ, with a smooth bend nullSoft deviations wide. The others keep
// their proportion to it. With the builtin embedder the score is also
// multiplied by the share of the query's IDF mass the index holds, to the
// power knownPow: it hashes words and their trigrams, so a word no chunk
// has matches only by collision (random letters reached 0.85 without this).
// Measured on the net+encoding set (cmd/dossier-retrieval, its first 300
// queries, and 300 strings of random letters): nullZ 3 and strongZ 8 score
// the best vector match of 275 of the 300 real queries at least 0.25 and
// of no random string above 0 (nullZ 4 and strongZ 10: 229 of 300).
const (
	nullZ    = 3.0
	strongZ  = 8.0
	nullSoft = 0.5
	knownPow = 1.0
)

// nullPrior is the null distribution assumed before the index has shown its
// own (a small index, or a filter that leaves few chunks), blended with what
// the query's scan observed as priorWeight observations: with a handful of
// chunks no cosine can stand far out of their own spread. The figures are
// the builtin embedder's median over the net+encoding queries.
const (
	priorMean   = 0.03
	priorSD     = 0.075
	priorWeight = 200
)

// cosineNull is one query's null distribution of cosines, accumulated by
// the vector scan. The sums are kept in fixed point, in units of
// 1/nullUnit, so they come out the same whatever order the cosines come in
// (the scan splits the documents between goroutines, and between the
// snapshot's vector table and the records of files changed since), and
// scores do not depend on the index's history. A unit of 2^-40 leaves
// room for 2^23 documents of cosine 1 and rounds each term by at most
// 5e-13.
type cosineNull struct {
	n, sum, sum2 int64
}

const nullUnit = 1 << 40

func (c *cosineNull) add(s float64) {
	c.n++
	c.sum += int64(math.Round(s * nullUnit))
	c.sum2 += int64(math.Round(s * s * nullUnit))
}

func (c *cosineNull) merge(o cosineNull) {
	c.n += o.n
	c.sum += o.sum
	c.sum2 += o.sum2
}

// meanSD blends the observed mean and deviation with the prior.
func (c cosineNull) meanSD() (float64, float64) {
	n := float64(c.n) + priorWeight
	mean := (float64(c.sum)/nullUnit + priorWeight*priorMean) / n
	second := (float64(c.sum2)/nullUnit + priorWeight*(priorSD*priorSD+priorMean*priorMean)) / n
	return mean, math.Sqrt(max(second-mean*mean, 1e-6))
}

// score maps a cosine to its absolute vector score: about 0 below nullZ
// deviations, rising by 1 from nullZ to strongZ. The bend at nullZ is
// smooth (a softplus nullSoft deviations wide), so what only chance
// relates to the query still ranks by its cosine, near 0.
func (c cosineNull) score(cos float64) float64 {
	mean, sd := c.meanSD()
	x := ((cos-mean)/sd - nullZ) / nullSoft
	sp := x // softplus(x) = log(1+e^x), which is x to float precision past 30
	if x < 30 {
		sp = math.Log1p(math.Exp(x))
	}
	return sp * nullSoft / (strongZ - nullZ)
}

// scale is the factor that turns the cosines of hits (sorted, best first)
// into absolute vector scores: the best one's score over its cosine, so
// that the others keep their proportion to it.
func (c cosineNull) scale(hits []hit) float64 {
	if len(hits) == 0 || hits[0].score <= 0 {
		return 0
	}
	return c.score(hits[0].score) / hits[0].score
}

// bounded maps a score onto 0..1 keeping its order: unchanged up to
// bendAt, where thresholds are set, then bending smoothly towards 1, so
// strong matches that evidence lifts past 1 still differ.
func bounded(s float64) float64 {
	if s <= bendAt {
		return max(s, 0)
	}
	return 1 - (1-bendAt)*math.Exp(-(s-bendAt)/(1-bendAt))
}

// bendAt is where bounded starts to bend.
const bendAt = 0.8
