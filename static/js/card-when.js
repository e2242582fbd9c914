/* System-card questions that apply only when another answer says so (data-when='{"llm": "yes"}'):
   shown while the answers they name are given, hidden otherwise; the server requires such a
   question only while it applies. */
(function () {
  document.querySelectorAll("[data-when]").forEach(function (field) {
    var when = JSON.parse(field.getAttribute("data-when"));
    var form = field.form;
    var box = field.closest(".ed-field, .card-question") || field;
    function answer(slug) {
      var el = form.querySelector('[name="' + slug + '"], [name="card.' + slug + '"]');
      return el ? el.value : "";
    }
    function update() {
      box.hidden = !Object.keys(when).every(function (slug) { return answer(slug) === when[slug]; });
    }
    form.addEventListener("change", update);
    update();
  });
})();
