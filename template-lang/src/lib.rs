//! The JSON-Template (JSON-T) language: parse once into a compiled tree, execute many
//! times against JSON data, with the formatters and predicates of the reference engines.
//!
//! ```
//! use template_lang::{Template, value::Node};
//! let t = Template::parse_strict("Hello {name|html}!").unwrap();
//! let data = Node::from_json_str(r#"{"name": "<World>"}"#).unwrap();
//! assert_eq!(t.render(&data), "Hello &lt;World&gt;!");
//! ```

pub mod compile;
pub mod error;
pub mod exec;
#[doc(hidden)]
pub mod fuzzing;
pub mod plugins;
pub mod syntax;
pub mod value;

pub use compile::uses::Use;
pub use compile::{CompileOptions, Compiled, Partials, Template};
pub use error::Diagnostic;
pub use exec::{Ctx, Env, Host, Injects, Limits, execute};
pub use plugins::Registry;
