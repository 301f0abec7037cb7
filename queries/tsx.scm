; inherits: typescript
; TSX symbols: the TypeScript query for the TSX grammar (whose definition nodes
; are the same; the directive above makes the loader prepend typescript.scm),
; plus JSX component uses as calls.

; <Button /> and <ui.Button>: a component used in JSX is a call of it
([
  (jsx_opening_element
    name: [
      (identifier) @name
      (member_expression property: (property_identifier) @name)
    ])
  (jsx_self_closing_element
    name: [
      (identifier) @name
      (member_expression property: (property_identifier) @name)
    ])
] @reference.call
  (#match? @name "^[A-Z]"))
