package grammar

// #include "flat.h"
import "C"

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// Tree is a syntax tree copied into Go memory (see Flatten). It holds no C
// memory: it stays valid after the sitter.Tree it came from is closed.
type Tree struct {
	nodes []Node
	names *names
}

// Node is one node of a Tree. Nodes are compared by pointer: a Tree has
// one Node per syntax node.
type Node struct {
	r C.dossier_node
	t *Tree
}

// names are a grammar's type (symbol) and field names, as Go strings.
type names struct {
	symbols map[uint16]string
	// hidden is dossier_inherits of each grammar symbol, 1 for true.
	hidden  []uint8
	fields  []string
	byField map[string]uint16
}

var (
	namesMu    sync.Mutex
	namesByLng = map[unsafe.Pointer]*names{}
)

// namesOf is the names of the grammar at lng, built on first use.
func namesOf(lng unsafe.Pointer) *names {
	namesMu.Lock()
	defer namesMu.Unlock()
	if nm := namesByLng[lng]; nm != nil {
		return nm
	}
	nm := &names{symbols: map[uint16]string{}, fields: []string{""}, byField: map[string]uint16{}}
	sym := func(i uint16) { nm.symbols[i] = C.GoString(C.dossier_symbol_name(lng, C.uint16_t(i))) }
	for i := range uint16(C.dossier_symbol_count(lng)) {
		sym(i)
		h := uint8(0)
		if C.dossier_inherits(lng, C.uint16_t(i)) {
			h = 1
		}
		nm.hidden = append(nm.hidden, h)
	}
	sym(0xFFFF) // ERROR
	sym(0xFFFE) // _ERROR
	for i := uint16(1); i <= uint16(C.dossier_field_count(lng)); i++ {
		f := C.GoString(C.dossier_field_name(lng, C.uint16_t(i)))
		nm.fields = append(nm.fields, f)
		nm.byField[f] = i
	}
	namesByLng[lng] = nm
	return nm
}

// Flatten copies t into Go memory. t stays the caller's to close.
func Flatten(t *sitter.Tree) *Tree {
	ft := &Tree{}
	ft.Refill(t)
	return ft
}

// keepNodes is the most nodes Refill keeps memory for: a bigger tree's
// copy is made for it alone, so one huge file does not hold on to its
// size for the rest of a run.
const keepNodes = 1 << 16

// Refill makes ft the copy of t, in the memory of ft's last copy where it
// fits: every Node of the last copy is one of the new tree's (or gone), so
// only a walker done with ft may refill it. A walker that copies tree
// after tree (file by file) allocates and clears its array
// once instead of once per file.
func (ft *Tree) Refill(t *sitter.Tree) {
	ct := treePointer(t)
	n := int(C.dossier_count(ct))
	ft.names = namesOf(unsafe.Pointer(C.dossier_language(ct)))
	if c := cap(ft.nodes); n > c || c > keepNodes && n <= keepNodes {
		size := n
		if n <= keepNodes {
			size = min(keepNodes, max(n, 2*c))
		}
		ft.nodes = make([]Node, size)
		for i := range ft.nodes {
			ft.nodes[i].t = ft
		}
	}
	ft.nodes = ft.nodes[:n]
	if n == 0 {
		return
	}
	stride := C.uint32_t(unsafe.Sizeof(Node{}))
	hidden := ft.names.hidden
	// 0: malloc failed; then the tree is far too large to walk anyway.
	got := int(C.dossier_flatten(ct, unsafe.Pointer(&ft.nodes[0].r), C.uint32_t(n), stride,
		(*C.uint8_t)(unsafe.Pointer(&hidden[0])), C.uint32_t(len(hidden))))
	if got != n {
		// tree-sitter counts the visible descendants its cursor walks:
		// they always agree.
		panic(fmt.Sprintf("grammar: tree-sitter counted %d nodes, its cursor walked %d", n, got))
	}
}

// treePointer is t's TSTree. The binding keeps it unexported, in
// Tree.BaseTree.c; baseTree mirrors BaseTree, and init checks that the
// binding's layout is still that one.
func treePointer(t *sitter.Tree) unsafe.Pointer {
	if t == nil || t.BaseTree == nil {
		panic("grammar: Flatten of a nil tree")
	}
	b := (*baseTree)(unsafe.Pointer(t.BaseTree))
	if b.isClosed {
		panic("grammar: Flatten of a closed tree")
	}
	return b.c
}

type baseTree struct {
	c        unsafe.Pointer
	isClosed bool
}

func init() {
	bt := reflect.TypeOf(sitter.BaseTree{})
	if bt.NumField() != 2 || bt.Field(0).Name != "c" || bt.Field(0).Type.Kind() != reflect.Pointer ||
		bt.Field(1).Name != "isClosed" || bt.Field(1).Type.Kind() != reflect.Bool ||
		bt.Size() != unsafe.Sizeof(baseTree{}) {
		panic("grammar: go-tree-sitter's BaseTree is no longer {c *C.TSTree; isClosed bool}; update treePointer")
	}
}

// Root is the tree's root node, nil for an empty tree.
func (t *Tree) Root() *Node { return t.at(0) }

// Len is the number of nodes in the tree.
func (t *Tree) Len() int { return len(t.nodes) }

func (t *Tree) at(i C.int32_t) *Node {
	if i < 0 || int(i) >= len(t.nodes) {
		return nil
	}
	return &t.nodes[i]
}

func (n *Node) flag(f C.uint8_t) bool { return n.r.flags&f != 0 }

// Type is the node's type, as sitter.Node.Type.
func (n *Node) Type() string { return n.t.names.symbols[uint16(n.r.symbol)] }

// Symbol is the node's grammar symbol, as sitter.Node.Symbol.
func (n *Node) Symbol() sitter.Symbol { return sitter.Symbol(n.r.symbol) }

// StartByte is the offset of the node's first byte.
func (n *Node) StartByte() uint32 { return uint32(n.r.start_byte) }

// EndByte is the offset just past the node's last byte.
func (n *Node) EndByte() uint32 { return uint32(n.r.end_byte) }

// StartPoint is the node's first row and column (0-based, in bytes).
func (n *Node) StartPoint() sitter.Point {
	return sitter.Point{Row: uint32(n.r.start_row), Column: uint32(n.r.start_col)}
}

// EndPoint is the row and column just past the node.
func (n *Node) EndPoint() sitter.Point {
	return sitter.Point{Row: uint32(n.r.end_row), Column: uint32(n.r.end_col)}
}

// Content is the node's text in src, the bytes it was parsed from.
func (n *Node) Content(src []byte) string { return string(src[n.r.start_byte:n.r.end_byte]) }

// IsNamed reports whether the node is named in the grammar (not a token
// such as "(").
func (n *Node) IsNamed() bool { return n.flag(C.DOSSIER_NAMED) }

// IsMissing reports whether the parser inserted the node to recover.
func (n *Node) IsMissing() bool { return n.flag(C.DOSSIER_MISSING) }

// IsExtra reports whether the node may appear anywhere (a comment).
func (n *Node) IsExtra() bool { return n.flag(C.DOSSIER_EXTRA) }

// HasError reports whether the node is or holds a syntax error.
func (n *Node) HasError() bool { return n.flag(C.DOSSIER_HAS_ERROR) }

// IsError reports whether the node is an ERROR node.
func (n *Node) IsError() bool { return n.r.symbol == 0xFFFF }

// Equal reports whether n and o are the same node.
func (n *Node) Equal(o *Node) bool { return n == o }

// Field is the name of the field that holds the node in its parent, "" for
// none.
func (n *Node) Field() string { return n.t.names.fields[n.r.field] }

// Parent is the node's parent, nil for the root.
func (n *Node) Parent() *Node { return n.t.at(n.r.parent) }

// ChildCount is the number of the node's children, named or not.
func (n *Node) ChildCount() uint32 { return uint32(n.r.child_count) }

// NamedChildCount is the number of the node's named children.
func (n *Node) NamedChildCount() uint32 { return uint32(n.r.named_child_count) }

// FirstChild is the node's first child, named or not; nil for none.
func (n *Node) FirstChild() *Node { return n.t.at(n.r.first_child) }

// NextSibling is the next child of the node's parent, nil for none.
func (n *Node) NextSibling() *Node { return n.t.at(n.r.next_sibling) }

// PrevSibling is the previous child of the node's parent, nil for none.
func (n *Node) PrevSibling() *Node {
	p := n.Parent()
	if p == nil {
		return nil
	}
	var prev *Node
	for c := p.FirstChild(); c != nil && c != n; c = c.NextSibling() {
		prev = c
	}
	return prev
}

// NextNamedSibling is the next named child of the node's parent.
func (n *Node) NextNamedSibling() *Node {
	c := n.NextSibling()
	for c != nil && !c.IsNamed() {
		c = c.NextSibling()
	}
	return c
}

// Child is the node's i-th child, named or not; nil past the last.
func (n *Node) Child(i int) *Node {
	c := n.FirstChild()
	for ; c != nil && i > 0; i-- {
		c = c.NextSibling()
	}
	if i < 0 {
		return nil
	}
	return c
}

// NamedChild is the node's i-th named child; nil past the last.
func (n *Node) NamedChild(i int) *Node {
	if i < 0 {
		return nil
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.IsNamed() {
			if i == 0 {
				return c
			}
			i--
		}
	}
	return nil
}

// ChildByFieldName is the node's first child in field name, nil for none,
// with the binding's answers where tree-sitter's cursor (which named the
// fields) and its ts_node_child_by_field_id differ: the children of an
// ERROR node are in no field, though the cursor names the fields they had
// in the rule the parser gave up on; and a field of a hidden rule that an
// alias makes visible (C's old-style function declarator, TypeScript's
// member expression after typeof) is found in that child's children too,
// as its parent's.
func (n *Node) ChildByFieldName(name string) *Node {
	id, ok := n.t.names.byField[name]
	if !ok || n.IsError() {
		return nil
	}
	return n.childByField(id)
}

func (n *Node) childByField(id uint16) *Node {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if uint16(c.r.field) == id {
			return c
		}
		if c.flag(C.DOSSIER_INHERITED) {
			if g := c.childByField(id); g != nil {
				return g
			}
		}
	}
	return nil
}

// Children lists the node's children, named or not (each knows its
// Field); nil for none.
func (n *Node) Children() []*Node {
	if n == nil || n.r.child_count == 0 {
		return nil
	}
	out := make([]*Node, 0, n.r.child_count)
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = append(out, c)
	}
	return out
}

// Named lists the node's named children; nil for none.
func (n *Node) Named() []*Node {
	if n == nil || n.r.named_child_count == 0 {
		return nil
	}
	out := make([]*Node, 0, n.r.named_child_count)
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.IsNamed() {
			out = append(out, c)
		}
	}
	return out
}

// Walk calls fn with n and each node under it, named or not, parents
// before their children, in source order; fn returns false to skip a
// node's children. Without recursion: a tree can be deeper than a stack.
func (n *Node) Walk(fn func(*Node) bool) {
	if n == nil {
		return
	}
	for c := n; c != nil; {
		if fn(c) {
			if k := c.FirstChild(); k != nil {
				c = k
				continue
			}
		}
		for c != n && c.r.next_sibling < 0 {
			c = c.Parent()
		}
		if c == n {
			return
		}
		c = c.NextSibling()
	}
}
