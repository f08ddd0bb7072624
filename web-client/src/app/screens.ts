/**
 * Which screen the page shows, and which follows which:
 *
 *   loading ──(no saved session)──────────────────────> login
 *   loading ──(resumed: in the world / at the account)─> world / characters
 *   login ────(logged in)─────────────────────────────> characters
 *   characters ──(entered)──> world ──(left the world)──> characters
 *   any ──(connection closed, resume failed)──────────> login, saying why
 *
 * A resume that starts in the world keeps the world on screen and tells its progress in the
 * world's notices (the character is still standing there); anywhere else it shows a card.
 *
 * What a screen is made of (DOM elements in the page) comes from `ScreenViews`, so this runs
 * without a DOM.
 */

export type Screen = 'loading' | 'login' | 'characters' | 'world';

export interface ScreenViews<E> {
  /** The card shown while a session is being resumed, and how to change what it says. */
  reconnecting(): { content: E[]; say(text: string): void };
  login(notice: string | undefined): E[];
  characters(account: string): E[];
  world(): E[];
  /** Tells the player something over the world. */
  notice(text: string): void;
}

/** Puts a screen's content on the page. */
export type Mount<E> = (screen: Screen, content: E[]) => void;

export class Screens<E = HTMLElement> {
  private shown: Screen = 'loading';
  private made: ScreenViews<E> | undefined;

  constructor(private readonly mount: Mount<E>) {}

  /** What the screens are made of: given once the page's parts exist (they act through those who show screens). */
  use(views: ScreenViews<E>): void {
    this.made = views;
  }

  get current(): Screen {
    return this.shown;
  }

  get inWorld(): boolean {
    return this.shown === 'world';
  }

  /** The log-in screen, with why the page is back there (a refusal, a lost connection). */
  login(notice?: string): void {
    this.show('login', this.views.login(notice));
  }

  /** Logged in, or back from the world: the account's characters. */
  characters(account: string): void {
    this.show('characters', this.views.characters(account));
  }

  /** A character entered the world (or the demo started). */
  world(): void {
    this.show('world', this.views.world());
  }

  /** Where a resume landed: back in the world, or at the account's characters. */
  resumed(entered: boolean, account: string): void {
    if (entered) this.world();
    else this.characters(account);
  }

  /**
   * A resume starts. In the world the world stays and its notices tell the progress; anywhere
   * else the reconnecting card does. Returns where to tell the next step.
   */
  reconnecting(): (text: string) => void {
    if (this.inWorld) {
      this.views.notice('Connection lost. Reconnecting…');
      return (text) => {
        if (this.inWorld) this.views.notice(text);
      };
    }
    const card = this.views.reconnecting();
    card.say('Reconnecting…');
    this.show('loading', card.content);
    return (text) => card.say(text);
  }

  private get views(): ScreenViews<E> {
    if (!this.made) throw new Error('Screens.use was not called: no screen to show');
    return this.made;
  }

  private show(next: Screen, content: E[]): void {
    this.shown = next;
    this.mount(next, content);
  }
}
