// flat.h: the one C function that copies a tree-sitter tree into an array
// (see flat.go), and the node record it fills.
#ifndef DOSSIER_FLAT_H
#define DOSSIER_FLAT_H

#include <stdbool.h>
#include <stdint.h>

// dossier_node is one node of the copy. Indexes are into the same array,
// -1 for none.
typedef struct {
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col, end_row, end_col;
	int32_t parent, first_child, last_child, next_sibling;
	uint32_t child_count, named_child_count;
	uint16_t symbol, field;
	uint8_t flags;
} dossier_node;

enum {
	DOSSIER_NAMED = 1,
	DOSSIER_MISSING = 2,
	DOSSIER_EXTRA = 4,
	DOSSIER_HAS_ERROR = 8,
	// A hidden rule made visible by an alias whose fields
	// ts_node_child_by_field_id takes for its parent's (see
	// dossier_inherits).
	DOSSIER_INHERITED = 16,
	// Set during dossier_flatten alone: a candidate for DOSSIER_INHERITED.
	DOSSIER_CANDIDATE = 32,
};

// dossier_count is the number of nodes dossier_flatten fills for tree.
uint32_t dossier_count(const void *tree);

// dossier_flatten fills out (cap records, stride bytes apart) with tree's
// nodes, parents before children, in source order, and returns how many
// it filled (cap + 1 when they did not fit). hidden[s] (for s below
// nhidden) is dossier_inherits of grammar symbol s.
uint32_t dossier_flatten(const void *tree, void *out, uint32_t cap, uint32_t stride,
	const uint8_t *hidden, uint32_t nhidden);

// dossier_inherits reports whether a node of grammar symbol symbol may be
// a hidden rule made visible by an alias, whose fields tree-sitter's
// ts_node_child_by_field_id takes for its parent's when the parent's rule
// says so: an auxiliary symbol, or one whose name belongs to another
// symbol first (a rule such as C's _old_style_function_declarator, always
// aliased to function_declarator). dossier_flatten asks the parent.
bool dossier_inherits(const void *lang, uint16_t symbol);

// dossier_language is tree's grammar; the rest name its symbols and fields.
const void *dossier_language(const void *tree);
uint32_t dossier_symbol_count(const void *lang);
const char *dossier_symbol_name(const void *lang, uint16_t symbol);
uint32_t dossier_field_count(const void *lang);
const char *dossier_field_name(const void *lang, uint16_t field);

#endif
