from .helpers import records_of, symbols_of

SOURCE = '''
import { readFile } from "fs";
import path from "path";

export const MAX_ITEMS = 3;

/**
 * A shopping cart.
 */
@sealed
export class Cart extends Base {
  static count = 0;

  // Build a cart.
  constructor(items) {
    super();
    this.items = items;
  }

  @logged
  get total() { return sum(this.items); }

  onAdd = (item) => {
    this.items.push(item);
  };

  static create() { return new Cart([]); }
}

export async function load(
  file,
  options = {},
) {
  const text = await readFile(file, options);
  return parse(text);
}

function load(name) {
  class Loader {
    run() {
      return path.join(name);
    }
  }
  return new Loader().run();
}

const square = (x) => x * x;
Cart.prototype.clear = function () {
  this.items.length = 0;
};
'''


def test_javascript_symbols():
    assert symbols_of(SOURCE, "javascript") == [
        ("MAX_ITEMS", "constant", (4, 4), None),
        ("Cart", "class", (6, 27), (11, 26)),
        ("Cart.constructor", "constructor", (13, 17), (15, 16)),
        ("Cart.total", "method", (19, 20), None),
        ("Cart.onAdd", "method", (22, 24), (23, 23)),
        ("Cart.create", "method", (26, 26), None),
        ("load", "function", (29, 35), (33, 34)),
        ("load#2", "function", (37, 44), (38, 43)),
        ("load.Loader", "class", (38, 42), (39, 41)),
        ("load.Loader.run", "method", (39, 41), (40, 40)),
        ("square", "function", (46, 46), None),
        ("Cart.clear", "method", (47, 49), (48, 48)),
    ]


def test_javascript_signatures_and_references():
    records, refs = records_of(SOURCE, "javascript")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart"] == "export class Cart extends Base"
    assert sigs["Cart.onAdd"] == "onAdd = (item) =>"
    assert sigs["load"] == "export async function load(\n  file,\n  options = {},\n)"
    assert sigs["square"] == "const square = (x) =>"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("readFile", 1, "import") in found
    assert ("Base", 10, "class") in found
    assert ("push", 23, "call") in found
    assert ("Cart", 26, "class") in found
    assert ("readFile", 33, "call") in found
    assert ("join", 40, "call") in found
    assert ("Loader", 43, "class") in found
    assert ("run", 43, "call") in found


def test_javascript_jsx_components_are_calls():
    records, refs = records_of(
        '''
        const App = () => (
          <Layout>
            <ui.Button />
            <div />
          </Layout>
        );
        ''',
        "javascript",
    )
    assert [(r.local_id, r.kind, r.lines, r.body) for r in records] == [("App", "function", (1, 6), (2, 5))]
    assert {(r.name, r.line) for r in refs} == {("Layout", 2), ("Button", 3)}


def test_methods_assigned_to_an_object_at_the_top_level_are_symbols():
    """Express's `res.send = function send(body) {...}`: a method res.send, found by
    name (a drill-in by symbol), its body elided in a skeleton; exports.x and
    module.exports keep their own meaning, and an assignment inside a function is not
    a definition of the module."""
    source = """
var res = Object.create(http.ServerResponse.prototype);

res.status = function status(code) {
  this.statusCode = code;
  return this;
};

res.json = (obj) => {
  return this.send(JSON.stringify(obj));
};

exports.helper = function () {
  return 1;
};

module.exports = function createApplication() {
  return {};
};

function setup(app) {
  app.handler = function () {
    return 2;
  };
}
"""
    assert symbols_of(source, "javascript") == [
        ("res.status", "method", (3, 6), (4, 5)),
        ("res.json", "method", (8, 10), (9, 9)),
        ("helper", "function", (12, 14), (13, 13)),
        ("createApplication", "function", (16, 18), (17, 17)),
        ("setup", "function", (20, 24), (21, 23)),
    ]


def test_a_named_function_that_is_no_declaration_is_a_symbol():
    """`export default enabled && function adapter() {}` and `module.exports = function
    handler() {}`: their bodies can be most of a module (axios's http adapter), which a
    skeleton showed whole while no symbol held it."""
    source = ("const enabled = true;\n"
              "export default enabled && function adapter(config) {\n"
              "  function abort(reason) {\n"
              "    return reason;\n"
              "  }\n"
              "  return abort(config);\n"
              "}\n")
    assert symbols_of(source, "javascript") == [
        ("adapter", "function", (2, 7), (3, 6)),
        ("adapter.abort", "function", (3, 5), (4, 4)),
    ]
    assert symbols_of("module.exports = function handler(req) {\n  return req;\n};\n", "javascript") == [
        ("handler", "function", (1, 3), (2, 2))]
