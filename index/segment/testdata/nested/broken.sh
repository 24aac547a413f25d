#!/usr/bin/env bash

first() {
  echo one
}

# tree-sitter-bash loses its place in the quotes of the eval.
append_args() { # <array...> -- <command ...>
  local -a trailing_args=()
  local array=$1
  if eval "(( \${#${array}[@]} > 0 ))"; then
    eval "trailing_args+=(\"\${${array}[@]}\")"
  fi
  "$@" "${trailing_args[@]}"
}

after() {
  printf "%s\n" "$1"
}

function last {
  echo "done"
}
