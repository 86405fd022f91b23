// What members and would-be members read (the server's messages come with its answers;
// these are the islands' own words).

export const SIGN_IN = "Sign in";
export const SIGNING_IN = "Signing in…";
export const SIGN_OUT = "Sign out";
export const SIGNING_OUT = "Signing out…";
export const SIGN_UP = "Sign up";
export const SIGNING_UP = "Sending…";
export const JOINING = "Joining…";
export const EMAIL = "Email Address";
export const PASSWORD = "Password";
export const NAME = "Name";
export const REMEMBER_ME = "Keep me signed in";
export const HAVE_ACCOUNT = "Already a member? Sign in";
export const NEED_ACCOUNT = "New here? Sign up";
export const KEEP_CART = "Keep my cart on this device";
export const SIGNED_IN_AS = (name: string) => `Signed in as ${name}`;
export const BLANK = "Please enter your email address and password.";
export const SHORT_PASSWORD = "Your password needs at least 8 characters.";
/** Shown when the answer to a sign-up has no message of its own. */
export const CHECK_EMAIL = "Check your email: we sent you a link to confirm your address and sign in.";

// Comments and likes (the counts read as the `comment-count` formatter writes them).
export const COMMENT_COUNT = (n: number) => (n === 0 ? "No Comments" : n === 1 ? "1 Comment" : `${n} Comments`);
export const COMMENTS = "Comments";
export const COMMENT = "Comment";
export const POST_COMMENT = "Post comment";
export const POSTING = "Posting…";
export const SIGN_IN_TO_COMMENT = "Sign in to comment";
/** The server's words, said before asking it. */
export const CLOSED = "Comments are closed for this item.";
export const EMPTY_COMMENT = "Please write a comment.";
export const LONG_COMMENT = "Your comment can have at most 2000 characters.";
export const MAX_COMMENT = 2000;
export const LOADING_COMMENTS = "Loading comments…";
export const LIKE = "Like";
export const LIKES = (n: number) => (n === 1 ? "1 like" : `${n} likes`);
