// flat.c walks a tree-sitter tree with one cursor, in C, and writes each
// node into an array of Go memory (see flat.go for why). It declares the
// few tree-sitter functions it calls instead of including the library's
// header: their definitions are compiled into
// github.com/smacker/go-tree-sitter, whose objects are linked into every
// binary that imports this package through it.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flat.h"

typedef struct TSTree TSTree;
typedef struct TSLanguage TSLanguage;
typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;
typedef struct TSPoint {
	uint32_t row;
	uint32_t column;
} TSPoint;
typedef struct TSNode {
	uint32_t context[4];
	const void *id;
	const TSTree *tree;
} TSNode;
typedef struct TSTreeCursor {
	const void *tree;
	const void *id;
	uint32_t context[3];
} TSTreeCursor;

TSNode ts_tree_root_node(const TSTree *self);
const TSLanguage *ts_tree_language(const TSTree *self);
uint32_t ts_node_descendant_count(TSNode self);
TSSymbol ts_node_symbol(TSNode self);
TSSymbol ts_node_grammar_symbol(TSNode self);
typedef enum { TSSymbolTypeRegular, TSSymbolTypeAnonymous, TSSymbolTypeAuxiliary } TSSymbolType;
TSSymbolType ts_language_symbol_type(const TSLanguage *self, TSSymbol symbol);
TSSymbol ts_language_symbol_for_name(const TSLanguage *self, const char *string, uint32_t length, bool is_named);
TSNode ts_node_child_by_field_id(TSNode self, TSFieldId field_id);
size_t strlen(const char *s);
void *malloc(size_t size);
void free(void *ptr);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
TSPoint ts_node_start_point(TSNode self);
TSPoint ts_node_end_point(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_is_missing(TSNode self);
bool ts_node_is_extra(TSNode self);
bool ts_node_has_error(TSNode self);
TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
TSFieldId ts_tree_cursor_current_field_id(const TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
uint32_t ts_language_symbol_count(const TSLanguage *self);
const char *ts_language_symbol_name(const TSLanguage *self, TSSymbol symbol);
uint32_t ts_language_field_count(const TSLanguage *self);
const char *ts_language_field_name_for_id(const TSLanguage *self, TSFieldId id);

uint32_t dossier_count(const void *tree) {
	return ts_node_descendant_count(ts_tree_root_node(tree));
}

const void *dossier_language(const void *tree) {
	return ts_tree_language(tree);
}

uint32_t dossier_symbol_count(const void *lang) {
	return ts_language_symbol_count(lang);
}

const char *dossier_symbol_name(const void *lang, uint16_t symbol) {
	return ts_language_symbol_name(lang, symbol);
}

uint32_t dossier_field_count(const void *lang) {
	return ts_language_field_count(lang);
}

const char *dossier_field_name(const void *lang, uint16_t field) {
	return ts_language_field_name_for_id(lang, field);
}

static dossier_node *at(void *out, uint32_t stride, int32_t i) {
	return (dossier_node *)((char *)out + (size_t)i * stride);
}

// inherited sets DOSSIER_INHERITED on node i, a candidate (see
// dossier_inherits) whose children are all filled, when its parent's
// ts_node_child_by_field_id finds one of them by its field. Candidates
// are few (a grammar has a handful of such rules), so the calls are too.
static void inherited(void *out, uint32_t stride, const TSNode *ts, int32_t i) {
	dossier_node *d = at(out, stride, i);
	if (d->parent < 0) {
		return;
	}
	for (int32_t k = d->first_child; k >= 0; k = at(out, stride, k)->next_sibling) {
		uint16_t f = at(out, stride, k)->field;
		if (!f) {
			continue;
		}
		TSNode r = ts_node_child_by_field_id(ts[d->parent], f);
		if (r.id == ts[k].id && ts_node_start_byte(r) == at(out, stride, k)->start_byte) {
			d->flags |= DOSSIER_INHERITED;
			return;
		}
	}
}

bool dossier_inherits(const void *lang, uint16_t symbol) {
	TSSymbolType t = ts_language_symbol_type(lang, symbol);
	if (t == TSSymbolTypeAuxiliary) {
		return true;
	}
	const char *name = ts_language_symbol_name(lang, symbol);
	return name && ts_language_symbol_for_name(lang, name, strlen(name), t == TSSymbolTypeRegular) != symbol;
}

uint32_t dossier_flatten(const void *tree, void *out, uint32_t cap, uint32_t stride,
	const uint8_t *hidden, uint32_t nhidden) {
	// The nodes as tree-sitter's, to ask a candidate's parent (see
	// inherited); freed on return.
	TSNode *ts = malloc(sizeof(TSNode) * (size_t)(cap ? cap : 1));
	if (!ts) {
		return 0;
	}
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(tree));
	uint32_t n = 0;
	int32_t parent = -1;
	for (;;) {
		if (n == cap) {
			ts_tree_cursor_delete(&c);
			free(ts);
			return cap + 1;
		}
		TSNode node = ts_tree_cursor_current_node(&c);
		ts[n] = node;
		dossier_node *d = at(out, stride, n);
		TSPoint sp = ts_node_start_point(node), ep = ts_node_end_point(node);
		d->start_byte = ts_node_start_byte(node);
		d->end_byte = ts_node_end_byte(node);
		d->start_row = sp.row;
		d->start_col = sp.column;
		d->end_row = ep.row;
		d->end_col = ep.column;
		d->parent = parent;
		d->first_child = d->last_child = d->next_sibling = -1;
		d->child_count = d->named_child_count = 0;
		d->symbol = ts_node_symbol(node);
		d->field = ts_tree_cursor_current_field_id(&c);
		d->flags = (ts_node_is_named(node) ? DOSSIER_NAMED : 0) |
			(ts_node_is_missing(node) ? DOSSIER_MISSING : 0) |
			(ts_node_is_extra(node) ? DOSSIER_EXTRA : 0) |
			(ts_node_has_error(node) ? DOSSIER_HAS_ERROR : 0);
		TSSymbol gs = ts_node_grammar_symbol(node);
		bool candidate = gs < nhidden && hidden[gs];
		if (parent >= 0) {
			dossier_node *p = at(out, stride, parent);
			if (p->last_child < 0) {
				p->first_child = (int32_t)n;
			} else {
				at(out, stride, p->last_child)->next_sibling = (int32_t)n;
			}
			p->last_child = (int32_t)n;
			p->child_count++;
			if (d->flags & DOSSIER_NAMED) {
				p->named_child_count++;
			}
		}
		int32_t self = (int32_t)n++;
		if (ts_tree_cursor_goto_first_child(&c)) {
			parent = self;
			if (candidate) {
				d->flags |= DOSSIER_CANDIDATE;
			}
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (parent < 0 || !ts_tree_cursor_goto_parent(&c)) {
				ts_tree_cursor_delete(&c);
				free(ts);
				return n;
			}
			dossier_node *p = at(out, stride, parent);
			if (p->flags & DOSSIER_CANDIDATE) {
				p->flags &= ~DOSSIER_CANDIDATE;
				inherited(out, stride, ts, parent);
			}
			parent = p->parent;
		}
	}
}
