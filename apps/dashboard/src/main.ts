// Placeholder until the dashboard is built.
document.body.textContent = 'dashboard';
