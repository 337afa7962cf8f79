// Requests for the user's approval that an application made with CIBA (GET /me/approvals): who
// asks, its message, from where, until when. The phone answers them too; here Approve (after a
// step-up, js/step-up.js) and Deny answer with POST /me/approvals/{id}.

import { api, el, formatTime, setStatus } from "./shared.js";
import "./step-up.js";

export async function refreshApprovals() {
  const { approvals = [] } = (await api("GET", "/me/approvals")) ?? {};
  el.approvals.replaceChildren(...approvals.map(approvalItem));
  el.approvalsSection.hidden = approvals.length === 0;
}

function approvalItem(approval) {
  const li = document.createElement("li");
  li.className = "approval";
  li.dataset.approvalId = approval.id;
  const label = document.createElement("span");
  const message = approval.binding_message ? `: “${approval.binding_message}”` : "";
  const where = approval.ip ? ` from ${approval.ip}` : "";
  label.textContent = `${approval.client_name} asks for your approval${message}${where}, until ${formatTime(approval.expires_at)}`;
  li.append(label);
  for (const [decision, text] of [["approve", "Approve"], ["deny", "Deny"]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `approval-${decision}`;
    button.textContent = text;
    button.addEventListener("click", async () => {
      try {
        setStatus("busy", decision === "approve" ? "Approving…" : "Denying…");
        // A 401 reauthentication_required runs the step-up, then the request is sent again.
        await api("POST", `/me/approvals/${encodeURIComponent(approval.id)}`, { decision });
        await refreshApprovals();
        setStatus("ok", decision === "approve" ? `Approved the request of ${approval.client_name}` : `Denied the request of ${approval.client_name}`);
      } catch (error) {
        setStatus("error", error.message ?? String(error), error);
      }
    });
    li.append(button);
  }
  return li;
}
