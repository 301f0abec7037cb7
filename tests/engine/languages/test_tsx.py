from .helpers import records_of, symbols_of

SOURCE = '''
import React, { useState } from "react";
import { Button } from "./button";

/** Props of the counter. */
export interface CounterProps {
  start?: number;
  onChange(value: number): void;
}

export const Counter = ({
  start = 0,
  onChange,
}: CounterProps) => {
  const [count, setCount] = useState(start);
  const bump = () => {
    setCount(count + 1);
    onChange(count + 1);
  };
  return <Button onClick={bump}>{count}</Button>;
};

export default function App(): JSX.Element {
  return (
    <main>
      <Counter start={1} onChange={log} />
    </main>
  );
}

const Label = <T,>({ text }: { text: T }) => <span>{format(text)}</span>;

export class Board extends React.Component<BoardProps> {
  // Renders rows.
  render() {
    return <div>{this.rows().map(renderRow)}</div>;
  }

  private rows(): Row[] { return buildRows(this.props); }
}

function format(value: number): string;
function format(value: string): string;
function format(value: unknown) {
  return String(value);
}
'''


def test_tsx_symbols():
    assert symbols_of(SOURCE, "tsx") == [
        ("CounterProps", "interface", (4, 8), (6, 7)),
        ("CounterProps.onChange", "method", (7, 7), None),
        ("Counter", "function", (10, 20), (14, 19)),
        ("Counter.bump", "function", (15, 18), (16, 17)),
        ("App", "function", (22, 28), (23, 27)),
        ("Label", "function", (30, 30), None),
        ("Board", "class", (32, 39), (33, 38)),
        ("Board.render", "method", (33, 36), (35, 35)),
        ("Board.rows", "method", (38, 38), None),
        ("format", "function", (41, 41), None),
        ("format#2", "function", (42, 42), None),
        ("format#3", "function", (43, 45), (44, 44)),
    ]


def test_tsx_signatures_and_references():
    records, refs = records_of(SOURCE, "tsx")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Counter"] == "export const Counter = ({\n  start = 0,\n  onChange,\n}: CounterProps) =>"
    assert sigs["App"] == "export default function App(): JSX.Element"
    assert sigs["Board.rows"] == "private rows(): Row[]"
    assert sigs["format#2"] == "function format(value: string): string;"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("useState", 1, "import") in found
    assert ("setCount", 16, "call") in found
    assert ("Button", 19, "call") in found  # <Button> element
    assert ("Counter", 25, "call") in found  # <Counter /> element
    assert ("Component", 32, "class") in found
    assert ("buildRows", 38, "call") in found
    assert ("main", 24, "call") not in found  # intrinsic elements are not calls
