// The add-to-cart button's states (SPEC.md §4 "Add-to-cart button", §9 "Cart and button"):
// idle → adding ("Adding…") → added ("Added!") about 1 s after success → idle 2 s later.
// A failure returns to idle after 1 s. Only an idle button takes a click.

export type ButtonState = "idle" | "adding" | "added";

/** The adding state lasts this long after success before "Added!" shows. */
export const ADDING_DELAY_MS = 1000;
/** "Added!" shows this long. */
export const ADDED_MS = 2000;
/** After a failure the button is idle again this long later. */
export const FAILURE_RESET_MS = 1000;

export class ButtonMachine {
  state: ButtonState = "idle";

  constructor(private readonly onChange: (s: ButtonState) => void) {}

  private set(s: ButtonState) {
    this.state = s;
    this.onChange(s);
  }

  /** A click: starts adding and returns true when idle; ignored (false) otherwise. */
  click(): boolean {
    if (this.state !== "idle") return false;
    this.set("adding");
    return true;
  }

  /** The add went through: "Added!" after the adding delay, idle after that. */
  succeed() {
    setTimeout(() => {
      this.set("added");
      setTimeout(() => this.set("idle"), ADDED_MS);
    }, ADDING_DELAY_MS);
  }

  /** The add failed: idle again after a second. */
  fail() {
    setTimeout(() => this.set("idle"), FAILURE_RESET_MS);
  }
}
