//! `tessera token create|list|revoke SITE`: the owner API's tokens of a site. A token is
//! printed once, as the last word of `create`'s output; the store keeps only its SHA-256.

use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::store_args::{StoreArgs, run_command};
use crate::http::owner::{new_token, parse_role, role_name};

/// Create, list or revoke a site's owner API tokens.
#[derive(Args, Debug)]
pub struct TokenArgs {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Subcommand, Debug)]
pub enum Action {
    /// Make a token with a role; prints it (once) as the last word.
    Create {
        /// The site: its identifier or one of its domains.
        tenant: String,
        /// The role: a name (admin, store-manager, editor, viewer …) or SPEC.md's number.
        #[arg(long, value_parser = parse_role)]
        role: u8,
        /// A note to tell tokens apart in `list`.
        #[arg(long, default_value = "")]
        name: String,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// List a site's tokens (never the tokens themselves).
    List {
        tenant: String,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Revoke a token by its id (from `list`): it stops working at once.
    Revoke {
        tenant: String,
        id: String,
        #[command(flatten)]
        store: StoreArgs,
    },
}

pub fn run(args: TokenArgs) -> ExitCode {
    run_command(async {
        match args.action {
            Action::Create {
                tenant,
                role,
                name,
                store,
            } => {
                let (s, site) = store.open_site(&tenant).await?;
                let token = new_token();
                let made = s
                    .create_api_token(
                        site.id,
                        i64::from(role),
                        name.trim(),
                        &tenants::secret_digest(&token),
                    )
                    .await;
                s.close().await?;
                let made = made?;
                println!(
                    "token {} ({}) for {}: {token}",
                    made.id,
                    role_name(role),
                    site.identifier
                );
            }
            Action::List { tenant, store } => {
                let (s, site) = store.open_site(&tenant).await?;
                let tokens = s.api_tokens(site.id).await;
                s.close().await?;
                for t in tokens? {
                    let state = t
                        .revoked_ms
                        .map_or_else(|| "live".to_owned(), |ms| format!("revoked {}", when(ms)));
                    println!(
                        "{}  {:<18} {:<20} created {}  {state}",
                        t.id,
                        role_name(u8::try_from(t.role).unwrap_or(0)),
                        t.name,
                        when(t.created_ms)
                    );
                }
            }
            Action::Revoke { tenant, id, store } => {
                let (s, site) = store.open_site(&tenant).await?;
                let revoked = s.revoke_api_token(site.id, &id).await;
                s.close().await?;
                match revoked {
                    Ok(t) => println!("token {} of {} is revoked", t.id, site.identifier),
                    Err(tenants::StoreError::NotFound(_)) => {
                        anyhow::bail!("{} has no token {id:?}", site.identifier)
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(())
    })
}

/// An instant as UTC date and time to the second.
fn when(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%Y-%m-%d %H:%M:%SZ").to_string())
        .unwrap_or_else(|_| ms.to_string())
}
