// An opened form takes the focus (its first field), and Escape closes it as its Cancel button does: a keyboard user
// neither hunts for the form nor tabs back to Cancel.

import { useEffect, useRef } from 'preact/hooks';

export interface FormFocus {
  readonly ref: { current: HTMLFormElement | null };
  readonly onKeyDown: (e: KeyboardEvent) => void;
}

const FIELDS = 'input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled])';

export function useFormFocus(onCancel: () => void): FormFocus {
  const ref = useRef<HTMLFormElement | null>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>(FIELDS)?.focus();
  }, []);
  return {
    ref,
    onKeyDown(e) {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      onCancel();
    },
  };
}
