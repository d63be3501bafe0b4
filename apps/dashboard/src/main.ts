// Entry point: the server sends operators with a session to /dashboard/ and everyone
// else to /dashboard/login; both get this one page, which renders what its path asks.
import './styles.css';
import './panels.css';
import { renderDashboard } from './dashboard';
import { renderLogin } from './login';

const root = document.getElementById('app') ?? document.body;
if (/\/login\/?$/.test(location.pathname)) renderLogin(root);
else renderDashboard(root);
