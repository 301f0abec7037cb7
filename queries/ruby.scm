; Ruby symbols. `body_statement` ends before the closing `end`, so the `body`
; field already leaves that line visible.
; The engine hides a closing line only when it is the body's own token, and it
; looks above `body_statement` for a comment that opens a class body.

; class Foo / class Outer::Inner (the scope qualifies the name: Outer.Inner)
(class
  name: (constant) @name) @definition.class

(class
  name: (scope_resolution
    scope: (_) @scope
    name: (constant) @name)) @definition.class

(module
  name: (constant) @name) @definition.module

(module
  name: (scope_resolution
    scope: (_) @scope
    name: (constant) @name)) @definition.module

; def inside a module body is a (mixin) method; listed before the generic
; pattern so it wins the tie on the same node.
(module
  body: (body_statement
    (method
      name: (_) @name) @definition.method))

(method
  name: (_) @name) @definition.function

; def self.foo / def Const.foo: a singleton method. A constant receiver at the
; top level qualifies the name (def Foo.bar -> Foo.bar).
(program
  (singleton_method
    object: (constant) @scope
    name: (_) @name) @definition.method)

(singleton_method
  name: (_) @name) @definition.method

; Constants assigned in a class/module body or at the top level: VERSION = "1"
(program
  (assignment
    left: (constant) @name) @definition.constant)

(body_statement
  (assignment
    left: (constant) @name) @definition.constant)

; References
(call
  method: (identifier) @name) @reference.call

(call
  method: (identifier) @_kw
  arguments: (argument_list
    [(constant) @name
     (scope_resolution name: (constant) @name)])
  (#any-of? @_kw "include" "extend" "prepend")) @reference.module

(call
  method: (identifier) @_kw
  arguments: (argument_list
    (string (string_content) @name))
  (#any-of? @_kw "require" "require_relative")) @reference.import

(superclass
  [(constant) @name
   (scope_resolution name: (constant) @name)]) @reference.class

; bare method calls without arguments or parentheses are plain identifiers and
; indistinguishable from local variables, so they are not references.
