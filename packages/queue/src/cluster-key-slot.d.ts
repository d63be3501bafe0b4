// The package ships no types: its default export is the slot of a key (hash tags honoured).
declare module 'cluster-key-slot' {
  const slotOf: (key: string) => number;
  export default slotOf;
}
