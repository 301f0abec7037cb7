import { createContext, useContext, useState, type ReactNode } from 'react';

export const MAX_ITEMS = 50;

type ListboxProps<T> = {
  value: T;
  onChange: (value: T) => void;
  children: ReactNode;
};

const ListboxContext = createContext<{ open: boolean } | null>(null);

export function useListbox() {
  const context = useContext(ListboxContext);
  if (context === null) {
    throw new Error('<Listbox.Option /> is missing a parent <Listbox /> component.');
  }
  return context;
}

export function Listbox<T>({ value, onChange, children }: ListboxProps<T>): JSX.Element {
  const [open, setOpen] = useState(false);
  return (
    <ListboxContext.Provider value={{ open }}>
      <div onClick={() => setOpen(!open)}>{children}</div>
    </ListboxContext.Provider>
  );
}

export const Option = ({
  value,
  disabled = false,
}: {
  value: string;
  disabled?: boolean;
}) => (
  <li aria-disabled={disabled} data-value={value}>
    {value}
  </li>
);

const Label = (props: { text: string }) => <label>{props.text}</label>;

export const createStore = (initial: number) => (set: (n: number) => void) => ({
  count: initial,
  increment: () => set(initial + 1),
});

export default function App(): JSX.Element { return (
  <Listbox value="a" onChange={() => undefined}>
    <Option value="a" />
  </Listbox>
); }

export class Boundary extends Component<{ fallback: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  render(): ReactNode { return this.state.failed ? this.props.fallback : (
    <>{this.props.children}</>
  ); }
}

function format(value: string): string;
function format(value: number): string;
function format(value: string | number): string {
  return String(value);
}
