// Copy buttons: shown only when scripts run; without them the token stays
// selectable in its read-only field.
document.querySelectorAll("[data-copy]").forEach(function (button) {
  var input = document.getElementById(button.getAttribute("data-copy"));
  if (!input || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(input.value).then(function () {
      button.textContent = "Copied";
    }, function () {
      input.select();
    });
  });
});
