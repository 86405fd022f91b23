//! `tessera owner add|list|remove|link SITE`: the owner app's accounts of a site. `add`
//! takes the password on standard input (`--password-stdin`), or prints a one-time link
//! (one hour) on the site's primary domain where the owner sets it; `link` prints a new one
//! for an existing account (a lost link, a forgotten password without mail).

use crate::http::host::link_origin as origin;
use std::io::Read;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::store_args::{StoreArgs, run_command};
use crate::http::owner::{parse_role, role_name};
use crate::services::owner::accounts::{self as flows, PasswordRule, check_password};

/// Add, list or remove the people who may sign in to a site's owner app.
#[derive(Args, Debug)]
pub struct OwnerArgs {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Subcommand, Debug)]
pub enum Action {
    /// Add an owner account with a role. Without --password-stdin, prints a one-time link
    /// (valid one hour) where its owner sets the password.
    Add {
        /// The site: its identifier or one of its domains.
        tenant: String,
        /// The owner's email address.
        email: String,
        /// The role: a name (admin, store-manager, editor, viewer …) or SPEC.md's number.
        #[arg(long, value_parser = parse_role)]
        role: u8,
        /// Read the password (8 to 128 characters) from standard input.
        #[arg(long)]
        password_stdin: bool,
        /// The port the site is served on, for the link (left out: the scheme's default).
        #[arg(long, value_name = "PORT")]
        port: Option<u16>,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Print a new one-time link (valid one hour) where an existing owner sets their
    /// password; earlier ones stop working.
    Link {
        tenant: String,
        email: String,
        /// The port the site is served on, for the link.
        #[arg(long, value_name = "PORT")]
        port: Option<u16>,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// List a site's owner accounts.
    List {
        tenant: String,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Remove an owner account (never the site's last admin); its sessions end at once.
    Remove {
        tenant: String,
        email: String,
        #[command(flatten)]
        store: StoreArgs,
    },
}

/// A new first-password link for the site's account with `email` on the site's primary
/// domain (`None`: no such account).
async fn set_password_link(
    s: &tenants::Store,
    site: &tenants::Tenant,
    email: &str,
    port: Option<u16>,
) -> tenants::Result<Option<String>> {
    let domain = tenants::model::Domain::link_host(&s.domains(site.id).await?, &site.identifier);
    flows::set_password_link(s, site.id, email, &origin(&domain, port)).await
}

/// The password on standard input: its first line, without the line's end.
fn password_from_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::stdin().take(4096).read_to_string(&mut text)?;
    let line = text.lines().next().unwrap_or("").to_owned();
    match check_password(&line) {
        Ok(()) => Ok(line),
        Err(PasswordRule::Short) => anyhow::bail!("the password needs at least 8 characters"),
        Err(PasswordRule::Long) => anyhow::bail!("the password can have at most 128 characters"),
    }
}

pub fn run(args: OwnerArgs) -> ExitCode {
    run_command(async {
        match args.action {
            Action::Add {
                tenant,
                email,
                role,
                password_stdin,
                port,
                store,
            } => {
                let password = password_stdin.then(password_from_stdin).transpose()?;
                let hash = match password {
                    Some(p) => Some(crate::services::passwords::hash(p).await?),
                    None => None,
                };
                let (s, site) = store.open_site(&tenant).await?;
                let added = async {
                    let account = s
                        .create_owner_account(site.id, &email, i64::from(role), hash.as_deref())
                        .await?;
                    let link = if account.has_password() {
                        None
                    } else {
                        let domain = tenants::model::Domain::link_host(
                            &s.domains(site.id).await?,
                            &site.identifier,
                        );
                        flows::set_password_link(
                            &s,
                            site.id,
                            &account.email,
                            &origin(&domain, port),
                        )
                        .await?
                    };
                    Ok::<_, tenants::StoreError>((account, link))
                }
                .await;
                s.close().await?;
                let (account, link) = match added {
                    Err(tenants::StoreError::Conflict(_)) => {
                        anyhow::bail!(
                            "{} already has an owner account for {email}",
                            site.identifier
                        )
                    }
                    Err(tenants::StoreError::Invalid(_)) => {
                        anyhow::bail!("{email:?} is not an email address")
                    }
                    other => other?,
                };
                println!(
                    "owner {} ({}) added to {}",
                    account.email,
                    role_name(role),
                    site.identifier
                );
                if let Some(link) = link {
                    println!("set the password within the hour, once, at: {link}");
                }
            }
            Action::Link {
                tenant,
                email,
                port,
                store,
            } => {
                let (s, site) = store.open_site(&tenant).await?;
                let link = set_password_link(&s, &site, &email, port).await;
                s.close().await?;
                match link? {
                    Some(link) => println!("set the password within the hour, once, at: {link}"),
                    None => anyhow::bail!("{} has no owner {email:?}", site.identifier),
                }
            }
            Action::List { tenant, store } => {
                let (s, site) = store.open_site(&tenant).await?;
                let accounts = s.owner_accounts(site.id).await;
                s.close().await?;
                for a in accounts? {
                    let state = if a.has_password() {
                        "password set"
                    } else {
                        "no password yet"
                    };
                    println!(
                        "{}  {:<18} {state}",
                        a.email,
                        role_name(u8::try_from(a.role).unwrap_or(0))
                    );
                }
            }
            Action::Remove {
                tenant,
                email,
                store,
            } => {
                let (s, site) = store.open_site(&tenant).await?;
                let removed = async {
                    match s.owner_account_by_email(site.id, &email).await? {
                        Some(a) => s.remove_owner_account(site.id, &a.id).await.map(Some),
                        None => Ok(None),
                    }
                }
                .await;
                s.close().await?;
                match removed {
                    Ok(Some(a)) => println!("owner {} removed from {}", a.email, site.identifier),
                    Ok(None) => anyhow::bail!("{} has no owner {email:?}", site.identifier),
                    Err(tenants::StoreError::Conflict(_)) => anyhow::bail!(
                        "{email} is the last admin of {}: make another owner admin first",
                        site.identifier
                    ),
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::origin;

    #[test]
    fn links_go_to_the_primary_domain() {
        assert_eq!(origin("shop.example", None), "https://shop.example");
        assert_eq!(origin("shop.example", Some(443)), "https://shop.example");
        assert_eq!(
            origin("shop.example", Some(8443)),
            "https://shop.example:8443"
        );
        assert_eq!(
            origin("loam.localhost", Some(8080)),
            "http://loam.localhost:8080"
        );
        assert_eq!(origin("localhost", Some(80)), "http://localhost");
    }
}
