// The admin page (/admin): accounts, groups and OpenID clients through /admin/api/. The user
// signs in on the main page first; this page uses the same session cookie. The API wants an
// admin (a member of --admin-group) with a recent passkey step-up: a 401
// reauthentication_required runs the step-up (js/step-up.js) and the request is sent again.
// Server data is put in the page with textContent only.
//
// Page URL switch: `?limit=N` asks for N accounts a page (default: the server's, 50).


import { api, badge, detail, formatTime, setStatus, timeElement } from "./shared.js";
import { $, el, state, pageLimit, path, splitNames, emptyItem, button, span, showGate, showConsole, act } from "./admin-page.js";
import "./step-up.js";

// ----------------------------------------------------------------- accounts

function userRow(user) {
  const tr = document.createElement("tr");
  tr.className = "user-row";
  tr.dataset.sub = user.sub;
  tr.dataset.userName = user.user_name;
  tr.dataset.disabled = user.disabled ? "true" : "false";
  const name = document.createElement("th");
  name.scope = "row";
  name.className = "user-name";
  name.textContent = user.user_name;
  const display = document.createElement("td");
  display.className = "user-display-name";
  display.textContent = user.display_name ?? "";
  const created = document.createElement("td");
  created.append(timeElement(user.created_at, "unknown"));
  const status = document.createElement("td");
  status.className = "user-state";
  status.append(user.disabled ? badge("Disabled", "disabled") : badge("Active", "synced"));
  const actions = document.createElement("td");
  const open = button("Open", "open-user", () => act(`Opening ${user.user_name}…`, () => openUser(user.sub)));
  open.setAttribute("aria-label", `Open ${user.user_name}`);
  actions.append(open);
  tr.append(name, display, created, status, actions);
  return tr;
}

// The first page of accounts for the search form, or (more) the next one appended.
async function loadUsers(more) {
  const query = new URLSearchParams();
  const text = el.query.value.trim();
  if (text) query.set("query", text);
  if (el.group.value) query.set("group", el.group.value);
  if (pageLimit) query.set("limit", String(pageLimit));
  if (more && state.cursor) query.set("cursor", state.cursor);
  const search = query.toString();
  const page = await api("GET", "/admin/api/users" + (search ? `?${search}` : ""));
  const rows = (page?.users ?? []).map(userRow);
  if (more) el.users.append(...rows);
  else el.users.replaceChildren(...rows);
  el.usersEmpty.hidden = el.users.children.length > 0;
  state.cursor = page?.next_cursor ?? null;
  el.usersMore.hidden = state.cursor === null;
  return page;
}

// --------------------------------------------------------- one account

async function openUser(sub) {
  const user = await api("GET", path("users", sub));
  showUser(user);
  el.detail.hidden = false;
  el.detailTitle.focus();
  setStatus("ok", `Showing ${user.user_name}`);
}

function showUser(user) {
  state.user = user;
  el.detail.dataset.sub = user.sub;
  el.detail.dataset.userName = user.user_name;
  el.detail.dataset.disabled = user.disabled ? "true" : "false";
  el.detailTitle.textContent = user.display_name && user.display_name !== user.user_name
    ? `${user.display_name} (${user.user_name})`
    : user.user_name;

  const dl = el.detailSummary;
  dl.replaceChildren();
  const sub = document.createElement("code");
  sub.textContent = user.sub;
  detail(dl, "Subject (sub)", sub, "detail-sub");
  detail(dl, "Display name", user.display_name ?? "", "detail-display-name");
  detail(dl, "Created", timeElement(user.created_at, "unknown"), "detail-created");
  detail(dl, "State", user.disabled ? "Disabled: signs in by no method" : "Active", "detail-state");
  detail(dl, "Recovery codes left", user.recovery_codes_left === null || user.recovery_codes_left === undefined
    ? "not used" : String(user.recovery_codes_left), "detail-recovery-codes");
  const apple = user.apple;
  detail(dl, "Apple ID", apple ? `linked${apple.email ? ` (${apple.email})` : ""}` : "not linked", "detail-apple");
  const phones = (user.push_devices ?? []).map((d) => d.name ?? d.deviceId ?? "phone");
  detail(dl, "Phones", phones.length ? phones.join(", ") : "none", "detail-phones");

  el.toggleDisabled.textContent = user.disabled ? "Enable account" : "Disable account";
  el.toggleDisabled.dataset.action = user.disabled ? "enable" : "disable";
  if (document.activeElement !== el.groupsInput) el.groupsInput.value = (user.groups ?? []).join(", ");

  const passkeys = (user.credentials ?? []).map((c) => passkeyItem(user, c));
  el.passkeys.replaceChildren(...(passkeys.length ? passkeys : [emptyItem("No passkeys.")]));
  const sessions = (user.sessions ?? []).map(sessionItem);
  el.sessions.replaceChildren(...(sessions.length ? sessions : [emptyItem("No open sessions.")]));
  el.endSessions.disabled = sessions.length === 0;
  const events = (user.events ?? []).map(eventItem);
  el.events.replaceChildren(...(events.length ? events : [emptyItem("No events.")]));
}

function closeUser() {
  state.user = null;
  el.detail.hidden = true;
  delete el.detail.dataset.sub;
  delete el.detail.dataset.userName;
  el.reset.hidden = true;
  el.resetURL.value = "";
  el.deleteConfirm.value = "";
  el.deleteBox.open = false;
}

function passkeyItem(user, credential) {
  const li = document.createElement("li");
  li.className = "admin-passkey";
  li.dataset.credentialId = credential.credential_id;
  const id = String(credential.credential_id);
  const name = credential.name || `Passkey ${id.slice(0, 8)}`;
  const head = document.createElement("div");
  head.className = "admin-item-head";
  head.append(span(name, "admin-item-name"));
  if (credential.backup_state) head.append(badge("Synced", "synced"));
  if (credential.possibly_cloned) head.append(badge("Possibly cloned", "disabled"));
  li.append(head);
  const facts = [
    credential.authenticator_name ? credential.authenticator_name : null,
    `created ${formatTime(credential.created_at) ?? "?"}`,
    credential.last_used_at ? `last used ${formatTime(credential.last_used_at)}` : "never used",
  ].filter(Boolean).join(" · ");
  li.append(span(facts, "admin-item-facts"));
  const remove = button("Delete", "delete-passkey", () => {
    act(`Deleting the passkey ${name}…`, async () => {
      await api("DELETE", path("users", user.sub, "credentials", id));
      showUser(await api("GET", path("users", user.sub)));
      setStatus("ok", `Passkey ${name} of ${user.user_name} deleted`);
    });
  });
  remove.setAttribute("aria-label", `Delete the passkey ${name}`);
  li.append(remove);
  return li;
}

const methodNames = { passkey: "passkey", apple: "Sign in with Apple", push: "phone approval", mfb: "Messages", recovery: "recovery code" };

function sessionItem(session) {
  const li = document.createElement("li");
  li.className = "admin-session";
  li.dataset.sessionId = session.id;
  const parts = [
    `by ${methodNames[session.method] ?? session.method ?? "?"}`,
    session.ip ? `from ${session.ip}` : null,
    `opened ${formatTime(session.created_at) ?? "?"}`,
    `last used ${formatTime(session.last_seen_at) ?? "?"}`,
    session.clients?.length ? `applications: ${session.clients.join(", ")}` : null,
  ].filter(Boolean);
  li.append(span(parts.join(", "), "admin-item-facts"));
  if (session.user_agent) li.append(span(session.user_agent, "admin-item-agent"));
  return li;
}

function eventItem(event) {
  const li = document.createElement("li");
  li.className = "admin-event";
  li.dataset.type = event.type;
  li.dataset.id = String(event.id);
  li.append(span(event.type, "event-what"), timeElement(event.at, ""));
  const details = Object.entries(event.details ?? {}).map(([key, value]) => `${key}=${value}`);
  const where = [event.ip, ...details].filter(Boolean).join(" · ");
  if (where) li.append(span(where, "event-where"));
  return li;
}

// ---------------------------------------------------------------- groups

async function loadGroups() {
  const { groups = [] } = (await api("GET", "/admin/api/groups")) ?? {};
  el.groups.replaceChildren(...(groups.length ? groups.map(groupItem) : [emptyItem("No groups have members.")]));
  // The search's group filter: any group, or one with members (kept when it still exists).
  const chosen = el.group.value;
  const options = [new Option("Any group", "")];
  for (const group of groups) options.push(new Option(`${group.name} (${group.members})`, group.name));
  el.group.replaceChildren(...options);
  el.group.value = groups.some((group) => group.name === chosen) ? chosen : "";
}

function groupItem(group) {
  const li = document.createElement("li");
  li.className = "admin-group";
  li.dataset.group = group.name;
  li.append(span(`${group.name}: ${group.members} ${group.members === 1 ? "member" : "members"}`, "admin-item-name"));
  const show = button("Show members", "show-group", () => {
    el.group.value = group.name;
    el.query.value = "";
    act(`Listing the members of ${group.name}…`, async () => {
      await loadUsers(false);
      setStatus("ok", `Members of ${group.name}`);
      el.users.closest("section").scrollIntoView({ block: "start" });
    });
  });
  show.setAttribute("aria-label", `Show the members of ${group.name}`);
  li.append(show);
  return li;
}

// --------------------------------------------------------------- clients

async function loadClients() {
  const { clients = [] } = (await api("GET", "/admin/api/clients")) ?? {};
  el.clients.replaceChildren(...(clients.length ? clients.map(clientItem) : [emptyItem("No clients.")]));
}

function clientItem(client) {
  const li = document.createElement("li");
  li.className = "admin-client";
  li.dataset.clientId = client.client_id;
  const head = document.createElement("div");
  head.className = "admin-item-head";
  head.append(span(client.name ? `${client.name} (${client.client_id})` : client.client_id, "admin-item-name"));
  head.append(badge(client.public ? "Public" : "Confidential", "neutral"));
  // Who made it: the operator, the client itself (dynamic registration), or its metadata document.
  const kinds = { operator: "Operator", registered: "Self-registered", metadata_document: "Metadata document" };
  head.append(badge(kinds[client.kind] ?? client.kind ?? "Operator", "neutral"));
  if (client.status === "pending") head.append(badge("Waiting for approval", "pending"));
  li.append(head);
  const uris = (client.redirect_uris ?? []).join(", ");
  li.append(span(`Redirect URIs: ${uris || "none"}; scope: ${client.scope ?? "?"}`, "admin-item-facts"));
  if (client.status === "pending") {
    // An open registration: its users cannot sign in to it until an admin approves it here.
    const approve = button("Approve", "approve-client", () => {
      act(`Approving the client ${client.client_id}…`, async () => {
        await api("POST", path("clients", client.client_id) + "/approve");
        await loadClients();
        setStatus("ok", `Client ${client.client_id} approved`);
      });
    });
    approve.setAttribute("aria-label", `Approve the client ${client.client_id} (${uris || "no redirect URI"})`);
    li.append(approve);
  }
  const remove = button("Remove", "remove-client", () => {
    act(`Removing the client ${client.client_id}…`, async () => {
      await api("DELETE", path("clients", client.client_id));
      await loadClients();
      setStatus("ok", `Client ${client.client_id} removed`);
    });
  });
  remove.setAttribute("aria-label", `Remove the client ${client.client_id}`);
  li.append(remove);
  return li;
}

// ---------------------------------------------------------------- events

el.search.addEventListener("submit", (event) => {
  event.preventDefault();
  act("Searching…", async () => {
    const page = await loadUsers(false);
    const count = page?.users?.length ?? 0;
    setStatus("ok", `${count} ${count === 1 ? "account" : "accounts"} found${page?.next_cursor ? " (more below)" : ""}`);
  });
});

el.group.addEventListener("change", () => el.search.requestSubmit());

el.usersMore.addEventListener("click", () => {
  act("Loading more accounts…", async () => {
    await loadUsers(true);
    setStatus("ok", `${el.users.children.length} accounts shown`);
  });
});

el.detailClose.addEventListener("click", () => {
  const sub = state.user?.sub;
  closeUser();
  el.users.querySelector(`tr[data-sub="${CSS.escape(sub ?? "")}"] .open-user`)?.focus();
});

el.toggleDisabled.addEventListener("click", () => {
  const user = state.user;
  if (!user) return;
  const disable = !user.disabled;
  act(`${disable ? "Disabling" : "Enabling"} ${user.user_name}…`, async () => {
    showUser(await api("PATCH", path("users", user.sub), { disabled: disable }));
    await loadUsers(false);
    setStatus("ok", disable ? `${user.user_name} is disabled: its sessions have ended` : `${user.user_name} is enabled again`);
  });
});

el.resetLink.addEventListener("click", () => {
  const user = state.user;
  if (!user) return;
  act(`Making a reset link for ${user.user_name}…`, async () => {
    const made = await api("POST", path("users", user.sub, "invite"), {});
    el.resetURL.value = made.url;
    el.resetExpires.textContent = `For ${made.user_name}; it works once, until ${formatTime(made.expires_at)}.`;
    el.reset.hidden = false;
    el.resetURL.focus();
    el.resetURL.select();
    setStatus("ok", `Reset link made for ${made.user_name}`);
  });
});

el.groupsForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const user = state.user;
  if (!user) return;
  const groups = splitNames(el.groupsInput.value);
  act(`Saving the groups of ${user.user_name}…`, async () => {
    el.groupsInput.blur();
    showUser(await api("PATCH", path("users", user.sub), { groups }));
    await loadGroups();
    setStatus("ok", `Groups of ${user.user_name} saved`);
  });
});

el.endSessions.addEventListener("click", () => {
  const user = state.user;
  if (!user) return;
  act(`Ending the sessions of ${user.user_name}…`, async () => {
    const answer = await api("DELETE", path("users", user.sub, "sessions"));
    showUser(await api("GET", path("users", user.sub)));
    const ended = answer?.ended ?? 0;
    setStatus("ok", `${ended} ${ended === 1 ? "session" : "sessions"} of ${user.user_name} ended`);
  });
});

el.deleteForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const user = state.user;
  if (!user) return;
  if (el.deleteConfirm.value.trim() !== user.user_name) {
    setStatus("error", `Type ${user.user_name} exactly to delete this account.`);
    el.deleteConfirm.focus();
    return;
  }
  act(`Deleting ${user.user_name}…`, async () => {
    await api("DELETE", path("users", user.sub));
    closeUser();
    await loadUsers(false);
    await loadGroups();
    setStatus("ok", `${user.user_name} deleted`);
  });
});

el.inviteForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const userName = el.inviteName.value.trim();
  if (!userName) {
    setStatus("error", "Type the user name to invite.");
    el.inviteName.focus();
    return;
  }
  const groups = splitNames(el.inviteGroups.value);
  act(`Making an invitation for ${userName}…`, async () => {
    const made = await api("POST", "/admin/api/users", { user_name: userName, groups });
    el.inviteURLLabel.textContent = `Invitation link for ${made.user_name}`;
    el.inviteURL.value = made.url;
    el.inviteExpires.textContent = `It works once, until ${formatTime(made.expires_at)}` +
      (groups.length ? `; the account joins ${groups.join(", ")}.` : ".");
    el.inviteResult.hidden = false;
    el.inviteResult.dataset.userName = made.user_name;
    el.inviteName.value = "";
    el.inviteGroups.value = "";
    el.inviteURL.focus();
    el.inviteURL.select();
    setStatus("ok", `Invitation link made for ${made.user_name}`);
  });
});

el.clientForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const clientId = el.clientId.value.trim();
  const redirect = el.clientRedirect.value.trim();
  if (!clientId || !redirect) {
    setStatus("error", "A client needs an ID and a redirect URI.");
    (clientId ? el.clientRedirect : el.clientId).focus();
    return;
  }
  const body = { client_id: clientId, public: el.clientPublic.checked, redirect_uris: [redirect], scope: "openid profile" };
  const name = el.clientName.value.trim();
  if (name) body.name = name;
  act(`Adding the client ${clientId}…`, async () => {
    const added = await api("POST", "/admin/api/clients", body);
    el.clientSecretBox.hidden = !added?.client_secret;
    el.clientSecret.value = added?.client_secret ?? "";
    el.clientSecretFor.textContent = added?.client_id ?? clientId;
    for (const field of [el.clientId, el.clientName, el.clientRedirect]) field.value = "";
    el.clientPublic.checked = false;
    await loadClients();
    setStatus("ok", `Client ${added?.client_id ?? clientId} added` + (added?.client_secret ? ": copy its secret now" : ""));
  });
});

el.retry.addEventListener("click", () => start());

// ---------------------------------------------------------------- start-up

// The accounts first, alone: the request that meets the step-up (one passkey ceremony), then
// the rest.
async function start() {
  await act("Loading…", async () => {
    await loadUsers(false);
    showConsole();
    await loadGroups();
    await loadClients();
    setStatus("ok", "Ready");
  });
  if (el.console.hidden && el.gate.hidden) {
    // Neither the console nor a refusal: the step-up failed, or the server did.
    showGate("error", "The administration could not be loaded.");
  }
}

start();
