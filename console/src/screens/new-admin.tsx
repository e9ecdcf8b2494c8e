import { useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  FormControlLabel,
  FormGroup,
  FormLabel,
  Radio,
  RadioGroup,
  TextField,
  Typography,
} from '@mui/material';
import { Confirm, Link, Title } from 'react-admin';
import { api, ApiError } from '../api';
import { PERMISSIONS } from '../permissions';
import { fieldErrors, useSession } from '../ui';
import { can } from '../authProvider';
import { ROLE_TEMPLATES, type RoleTemplateName } from '../../../src/domain/user/role-templates';

const NAMES = Object.keys(ROLE_TEMPLATES) as RoleTemplateName[];

/**
 * A new admin from a job template (support, finance, risk, content): the template fills the permissions, the SuperAdmin edits
 * them, then confirms exactly what is granted. POST /user/admin-user: the creation and each grant are audited.
 */
export const NewAdminPage = () => {
  const me = useSession();
  const [template, setTemplate] = useState<RoleTemplateName>('support');
  const [granted, setGranted] = useState<Set<string>>(new Set(ROLE_TEMPLATES.support.permissions));
  const [form, setForm] = useState({ username: '', email: '', password: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const [created, setCreated] = useState<{ id: number; username: string } | undefined>();
  if (!can(me, 'superadmin'))
    return (
      <Alert severity="warning" role="alert" sx={{ m: 2 }}>
        Only a SuperAdmin creates admins.
      </Alert>
    );
  const choose = (name: RoleTemplateName) => {
    setTemplate(name);
    setGranted(new Set(ROLE_TEMPLATES[name].permissions));
  };
  const toggle = (p: string) =>
    setGranted((g) => {
      const next = new Set(g);
      if (next.has(p)) next.delete(p);
      else next.add(p);
      return next;
    });
  const create = async () => {
    setConfirming(false);
    setProblem(undefined);
    try {
      const body = {
        username: form.username,
        password: form.password,
        permissions: [...granted],
        ...(form.email ? { email: form.email } : {}),
      };
      const { json } = await api<{ id: number; username: string }>('POST', '/user/admin-user', body);
      setCreated(json);
      setErrors({});
    } catch (e) {
      setErrors(fieldErrors(e) ?? {});
      setProblem(e instanceof ApiError ? `${e.body.code}: ${e.body.message}` : String(e));
    }
  };
  const field = (name: keyof typeof form, label: string, type = 'text') => (
    <TextField
      label={label}
      type={type}
      value={form[name]}
      onChange={(e) => setForm({ ...form, [name]: e.target.value })}
      error={Boolean(errors[name])}
      helperText={errors[name] ?? ' '}
      size="small"
      fullWidth
    />
  );
  const inTemplate = new Set<string>(ROLE_TEMPLATES[template].permissions);
  // The template's permissions first, then every other one, so an addition is one tick away.
  const listed = [...ROLE_TEMPLATES[template].permissions, ...PERMISSIONS.filter((p) => !inTemplate.has(p))];
  return (
    <Box sx={{ p: 2, maxWidth: 900 }}>
      <Title title="New admin" />
      <Typography variant="h5" component="h1">
        New admin
      </Typography>
      {created ? (
        <Alert severity="success" role="status" sx={{ my: 1 }}>
          Admin {created.username} created. <Link to={`/users/${created.id}/show`}>Open their page</Link>
        </Alert>
      ) : null}
      {problem ? (
        <Alert severity="error" role="alert" sx={{ my: 1 }}>
          {problem}
        </Alert>
      ) : null}
      <Box component="section" aria-label="Template" sx={{ my: 2 }}>
        <FormLabel id="template-label">Template</FormLabel>
        <RadioGroup aria-labelledby="template-label" value={template} onChange={(e) => choose(e.target.value as RoleTemplateName)}>
          {NAMES.map((n) => (
            <FormControlLabel key={n} value={n} control={<Radio />} label={`${ROLE_TEMPLATES[n].label}: ${ROLE_TEMPLATES[n].purpose}`} />
          ))}
        </RadioGroup>
      </Box>
      <Box sx={{ display: 'grid', gridTemplateColumns: { md: '1fr 1fr 1fr' }, gap: 2 }}>
        {field('username', 'Username')}
        {field('email', 'E-mail (optional)')}
        {field('password', 'Password', 'password')}
      </Box>
      <Box component="section" aria-label="Permissions" sx={{ my: 2 }}>
        <FormLabel component="legend">Permissions ({granted.size}; the template's first, edit before creating)</FormLabel>
        <FormGroup sx={{ display: 'grid', gridTemplateColumns: { md: '1fr 1fr 1fr' } }}>
          {listed.map((p) => (
            <FormControlLabel key={p} control={<Checkbox checked={granted.has(p)} onChange={() => toggle(p)} />} label={p} />
          ))}
        </FormGroup>
      </Box>
      <Button variant="contained" onClick={() => setConfirming(true)} disabled={!form.username || !form.password}>
        Create admin
      </Button>
      <Confirm
        isOpen={confirming}
        title="Create admin"
        confirm="Confirm"
        content={
          <>
            Create the admin {form.username} with {granted.size} permissions: {[...granted].sort().join(', ') || 'none'}?
          </>
        }
        onConfirm={() => void create()}
        onClose={() => setConfirming(false)}
      />
    </Box>
  );
};
